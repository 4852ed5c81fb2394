import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import type { SASLOptions } from 'kafkajs';

/**
 * TLS and SASL for KafkaTransport, from env, in one place (docs/events.md "Transports", docs/kubernetes.md
 * "Kafka with TLS and SASL"):
 *
 * | variable | |
 * |---|---|
 * | `KAFKA_SSL` | `true` / `false` (default false): TLS to the brokers |
 * | `KAFKA_SSL_CA_FILE` | PEM bundle of the CAs that sign the brokers' certificates (default: Node's trust store) |
 * | `KAFKA_SSL_CERT_FILE`, `KAFKA_SSL_KEY_FILE` | client certificate and its unencrypted private key (mTLS): both or neither |
 * | `KAFKA_SSL_REJECT_UNAUTHORIZED` | `true` / `false` (default true): verify the brokers' certificates |
 * | `KAFKA_SASL_MECHANISM` | `plain`, `scram-sha-256` or `scram-sha-512` |
 * | `KAFKA_SASL_USERNAME`, `KAFKA_SASL_PASSWORD` | required with a mechanism |
 *
 * Every problem names its variable; no message ever holds the password (nor the username: only whether it is set).
 */
export const KAFKA_SASL_MECHANISMS = ['plain', 'scram-sha-256', 'scram-sha-512'] as const;
export type KafkaSaslMechanism = (typeof KAFKA_SASL_MECHANISMS)[number];

/** What KafkaTransport hands kafkajs: `ssl` (tls.connect options, or true) and `sasl`. Both absent: plaintext. */
export interface KafkaSecurity {
  ssl?: ConnectionOptions | boolean;
  sasl?: SASLOptions;
}

export interface KafkaSecurityCheck {
  /** Bad variables or combinations, each naming its variable; any of them refuses the start. */
  problems: string[];
  /** Allowed but weak settings (certificates not verified, SASL without TLS): logged at start. */
  warnings: string[];
  /** The options, when there is no problem. */
  security?: KafkaSecurity;
}

/** Thrown by kafkaSecurityFromEnv (and so by the KafkaTransport constructor): the service does not start. */
export class KafkaConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid Kafka configuration:\n${problems.map((p) => `- ${p}`).join('\n')}`);
    this.name = 'KafkaConfigError';
  }
}

type Env = Record<string, string | undefined>;

const set = (v: string | undefined): v is string => v !== undefined && v.trim() !== '';
/** A value echoed in a message (never a secret): short, printable. */
const shown = (v: string) => JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v).replace(/[^\x20-\x7e]/g, '?');

function flag(env: Env, name: string, fallback: boolean, problems: string[]): boolean {
  const raw = env[name];
  if (!set(raw)) return fallback;
  const v = raw.trim().toLowerCase();
  if (v === 'true') return true;
  if (v === 'false') return false;
  problems.push(`${name} must be "true" or "false" (got ${shown(raw)})`);
  return fallback;
}

const PEM_CERT = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** The file's text, or a problem naming the variable: missing, a directory, unreadable. */
function readPem(env: Env, name: string, problems: string[]): string | undefined {
  const file = env[name]!.trim();
  try {
    if (statSync(file).isDirectory()) {
      problems.push(`${name}: ${file} is a directory, not a PEM file`);
      return undefined;
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    problems.push(code === 'ENOENT' ? `${name}: file ${file} does not exist` : `${name}: file ${file} cannot be read (${code ?? 'error'})`);
    return undefined;
  }
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    problems.push(`${name}: file ${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    return undefined;
  }
}

/** Every certificate of a PEM bundle, parsed; a problem when there is none or one does not parse. */
function certificates(name: string, file: string, pem: string, problems: string[]): X509Certificate[] {
  const blocks = pem.match(PEM_CERT) ?? [];
  if (blocks.length === 0) {
    problems.push(`${name}: ${file} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
    return [];
  }
  const parsed: X509Certificate[] = [];
  blocks.forEach((block, i) => {
    try {
      parsed.push(new X509Certificate(block));
    } catch {
      problems.push(`${name}: certificate ${i + 1} of ${file} cannot be parsed`);
    }
  });
  return parsed;
}

/**
 * Checks the TLS/SASL variables and builds the kafkajs options. Never throws; see kafkaSecurityFromEnv. In
 * production (`NODE_ENV=production` or `DTP_ENV=live`) SASL PLAIN without TLS is a problem (the password would
 * cross the network in clear text); elsewhere a warning.
 */
export function checkKafkaSecurityEnv(env: Env = process.env): KafkaSecurityCheck {
  const problems: string[] = [];
  const warnings: string[] = [];
  const production = env.NODE_ENV === 'production' || env.DTP_ENV === 'live';

  // TLS
  const ssl = flag(env, 'KAFKA_SSL', false, problems);
  const rejectUnauthorized = flag(env, 'KAFKA_SSL_REJECT_UNAUTHORIZED', true, problems);
  const tlsVars = ['KAFKA_SSL_CA_FILE', 'KAFKA_SSL_CERT_FILE', 'KAFKA_SSL_KEY_FILE', 'KAFKA_SSL_REJECT_UNAUTHORIZED'];
  let tls: ConnectionOptions | undefined;
  if (!ssl) {
    for (const name of tlsVars) if (set(env[name])) problems.push(`${name} is set but KAFKA_SSL is not "true"`);
  } else {
    tls = { rejectUnauthorized };
    if (!rejectUnauthorized)
      warnings.push("KAFKA_SSL_REJECT_UNAUTHORIZED=false: the brokers' certificates are not verified (anyone on the path can pose as a broker)");
    if (set(env.KAFKA_SSL_CA_FILE)) {
      const pem = readPem(env, 'KAFKA_SSL_CA_FILE', problems);
      if (pem !== undefined && certificates('KAFKA_SSL_CA_FILE', env.KAFKA_SSL_CA_FILE.trim(), pem, problems).length > 0) tls.ca = pem;
    }
    const hasCert = set(env.KAFKA_SSL_CERT_FILE);
    const hasKey = set(env.KAFKA_SSL_KEY_FILE);
    if (hasCert && !hasKey) problems.push('KAFKA_SSL_CERT_FILE is set without KAFKA_SSL_KEY_FILE: a client certificate needs both');
    if (hasKey && !hasCert) problems.push('KAFKA_SSL_KEY_FILE is set without KAFKA_SSL_CERT_FILE: a client certificate needs both');
    if (hasCert && hasKey) {
      const certFile = env.KAFKA_SSL_CERT_FILE!.trim();
      const keyFile = env.KAFKA_SSL_KEY_FILE!.trim();
      const certPem = readPem(env, 'KAFKA_SSL_CERT_FILE', problems);
      const keyPem = readPem(env, 'KAFKA_SSL_KEY_FILE', problems);
      const chain = certPem === undefined ? [] : certificates('KAFKA_SSL_CERT_FILE', certFile, certPem, problems);
      let key: ReturnType<typeof createPrivateKey> | undefined;
      if (keyPem !== undefined) {
        try {
          key = createPrivateKey(keyPem);
        } catch {
          problems.push(`KAFKA_SSL_KEY_FILE: ${keyFile} is not an unencrypted PEM private key`);
        }
      }
      if (chain.length > 0 && key) {
        if (!chain[0].checkPrivateKey(key)) problems.push(`KAFKA_SSL_KEY_FILE: ${keyFile} is not the private key of the certificate in KAFKA_SSL_CERT_FILE`);
        else {
          tls.cert = certPem;
          tls.key = keyPem;
        }
      }
    }
  }

  // SASL
  const rawMechanism = env.KAFKA_SASL_MECHANISM;
  const hasUser = set(env.KAFKA_SASL_USERNAME);
  const hasPassword = set(env.KAFKA_SASL_PASSWORD);
  let sasl: SASLOptions | undefined;
  if (!set(rawMechanism)) {
    if (hasUser) problems.push('KAFKA_SASL_USERNAME is set but KAFKA_SASL_MECHANISM is not (plain, scram-sha-256 or scram-sha-512)');
    if (hasPassword) problems.push('KAFKA_SASL_PASSWORD is set but KAFKA_SASL_MECHANISM is not (plain, scram-sha-256 or scram-sha-512)');
  } else {
    const mechanism = rawMechanism.trim().toLowerCase();
    if (!(KAFKA_SASL_MECHANISMS as readonly string[]).includes(mechanism)) {
      problems.push(`KAFKA_SASL_MECHANISM ${shown(rawMechanism)} is not supported: use plain, scram-sha-256 or scram-sha-512`);
    } else {
      if (!hasUser) problems.push(`KAFKA_SASL_USERNAME is required with KAFKA_SASL_MECHANISM=${mechanism}`);
      if (!hasPassword) problems.push(`KAFKA_SASL_PASSWORD is required with KAFKA_SASL_MECHANISM=${mechanism}`);
      if (!ssl) {
        if (mechanism === 'plain') {
          const text = 'KAFKA_SASL_MECHANISM=plain without KAFKA_SSL=true sends the password in clear text';
          if (production) problems.push(`${text} (refused in production: set KAFKA_SSL=true)`);
          else warnings.push(text);
        } else {
          warnings.push(`KAFKA_SASL_MECHANISM=${mechanism} without KAFKA_SSL=true: the password is not sent, but the traffic is not encrypted`);
        }
      }
      if (hasUser && hasPassword) {
        sasl = { mechanism: mechanism as KafkaSaslMechanism, username: env.KAFKA_SASL_USERNAME!, password: env.KAFKA_SASL_PASSWORD! } as SASLOptions;
        hideSecret(sasl);
      }
    }
  }

  if (problems.length > 0) return { problems, warnings };
  const security: KafkaSecurity = {};
  if (tls) security.ssl = Object.keys(tls).length === 1 && rejectUnauthorized ? true : tls;
  if (sasl) security.sasl = sasl;
  return { problems, warnings, security };
}

/** The options for kafkajs from env; throws KafkaConfigError naming every bad variable (the service refuses to start). */
export function kafkaSecurityFromEnv(env: Env = process.env): KafkaSecurity & { warnings: string[] } {
  const checked = checkKafkaSecurityEnv(env);
  if (checked.problems.length > 0) throw new KafkaConfigError(checked.problems);
  const out = { ...checked.security, warnings: checked.warnings };
  Object.defineProperty(out, 'warnings', { enumerable: false });
  return out;
}

/** One line for the start-up log: what is on, never a secret. */
export function describeKafkaSecurity(security: KafkaSecurity): string {
  const parts: string[] = [];
  if (!security.ssl) parts.push('TLS off');
  else if (security.ssl === true) parts.push('TLS on (system CAs)');
  else {
    const o = security.ssl;
    parts.push(
      `TLS on (${o.ca ? 'CA bundle from KAFKA_SSL_CA_FILE' : 'system CAs'}${o.cert ? ', client certificate' : ''}${o.rejectUnauthorized === false ? ', certificates NOT verified' : ''})`,
    );
  }
  parts.push(security.sasl ? `SASL ${security.sasl.mechanism}` : 'no SASL');
  return parts.join(', ');
}

/**
 * Keeps the password readable by kafkajs (`sasl.password`) but out of JSON.stringify, util.inspect and pino:
 * the property is not enumerable.
 */
function hideSecret(sasl: SASLOptions): void {
  if ('password' in sasl) Object.defineProperty(sasl, 'password', { enumerable: false, value: sasl.password, writable: false });
}
