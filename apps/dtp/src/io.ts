/** Where the CLI reads and writes: the process's streams, or a test's buffers. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  /** stdin, for `login --client-secret-stdin` and the secret prompt. */
  stdin: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown };
  /** stderr is a terminal: progress bars and prompts. */
  errIsTTY: boolean;
  /** The stream progress bars draw on. */
  errStream: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /**
   * Calls `handler` on each interrupt (SIGINT: Ctrl-C) until the returned function is called; while a handler is
   * registered the interrupt does not end the process. Absent: nothing interrupts (in-process tests).
   */
  onInterrupt?(handler: () => void): () => void;
}

export function processIo(): CliIo {
  return {
    out: (t) => process.stdout.write(t),
    err: (t) => process.stderr.write(t),
    stdin: process.stdin,
    errIsTTY: Boolean(process.stderr.isTTY),
    errStream: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    onInterrupt(handler) {
      process.on('SIGINT', handler);
      return () => void process.off('SIGINT', handler);
    },
  };
}

/** JSON for scripts: one document, two-space indented, newline-terminated. */
export function printJson(io: CliIo, value: unknown): void {
  io.out(`${JSON.stringify(value, null, 2)}\n`);
}

/** A plain text table (columns padded to their widest cell) for people. */
export function printTable(io: CliIo, headers: string[], rows: (string | number | null | undefined)[][]): void {
  const cells = [headers, ...rows.map((r) => r.map((c) => (c === null || c === undefined ? '-' : String(c))))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  for (const row of cells) io.out(`${row.map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i]))).join('  ')}\n`);
}
