import 'reflect-metadata';
import { createHash } from 'node:crypto';
import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, validateSync } from 'class-validator';
import { CsvError, parse } from 'csv-parse/sync';
import { CreateRoughDiamondDto, RoughSchemaDto, toValidationDetail } from '@dtp/domain';
import { UsageError } from '../exit-codes';

/** One CSV record, as the body of `POST /diamonds/rough/create`. */
export interface RoughRow {
  /** The line the record starts on (the header is line 1). */
  line: number;
  body: Record<string, unknown>;
}

/** A bad field of a row: `field` is the column name (`rough.carats`). */
export interface RowProblem {
  line: number;
  field: string;
  msg: string;
  type: string;
}

export interface ParsedRoughCsv {
  columns: string[];
  rows: RoughRow[];
  /** Rows that failed validation, each with every bad field. */
  problems: RowProblem[];
  /** Lines of the rows with problems. */
  invalidLines: Set<number>;
  /** sha256 of the file's bytes (hex): with the line number, the rows' Idempotency-Keys. */
  sha256: string;
}

function propertiesOf(cls: Function): string[] {
  const metas = getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false);
  return [...new Set(metas.map((m) => m.propertyName))];
}

/** The columns a rough import accepts: CreateRoughDiamond's members, `rough.<member>` for the rough data. */
export function roughImportColumns(): string[] {
  const top = propertiesOf(CreateRoughDiamondDto).filter((p) => p !== 'rough');
  return [...top, ...propertiesOf(RoughSchemaDto).map((p) => `rough.${p}`)];
}

/** Columns whose cells hold JSON objects. */
const JSON_COLUMNS = new Set(['entity_specific_tags', 'supplementary_tags']);
/** Columns whose cells hold integers. */
const INTEGER_COLUMNS = new Set(['sight_no', 'sight_year']);

/**
 * Parses and validates a rough import file. Every row is checked with the service's own class-validator DTO
 * (CreateRoughDiamondDto, unknown fields refused), so a row that passes here is refused by the service only for
 * what needs its data (a duplicate participant_id, a shipment's limits). An empty cell is an absent member;
 * `entity_specific_tags` and `supplementary_tags` cells are JSON; `sight_no` and `sight_year` integers. A header
 * with an unknown or repeated column, or a malformed CSV, is a UsageError.
 */
export function parseRoughCsv(bytes: Buffer): ParsedRoughCsv {
  const known = new Set(roughImportColumns());
  let columns: string[] = [];
  let records: { record: Record<string, string>; info: { lines: number } }[];
  try {
    records = parse(bytes, {
      bom: true,
      columns: (header: string[]) => {
        const unknown = header.filter((h) => !known.has(h));
        const repeated = header.filter((h, i) => header.indexOf(h) !== i);
        if (unknown.length > 0) {
          throw new UsageError(
            `unknown column${unknown.length > 1 ? 's' : ''} ${unknown.map((c) => `"${c}"`).join(', ')}; the columns are: ${[...known].join(', ')}`,
          );
        }
        if (repeated.length > 0) throw new UsageError(`column "${repeated[0]}" appears twice`);
        columns = header;
        return header;
      },
      skip_empty_lines: true,
      info: true,
    }) as unknown as { record: Record<string, string>; info: { lines: number } }[];
  } catch (err) {
    if (err instanceof UsageError) throw err;
    if (err instanceof CsvError) throw new UsageError(`the file is not valid CSV: ${err.message}`);
    throw err;
  }
  if (columns.length === 0) throw new UsageError('the file is empty: the first line must name the columns');

  const rows: RoughRow[] = [];
  const problems: RowProblem[] = [];
  const invalidLines = new Set<number>();
  let nextLine = 2;
  for (const { record, info } of records) {
    // info.lines is the line the record ends on; a record starts after the previous one (blank lines aside).
    const line = firstLineOf(record, info.lines, nextLine);
    nextLine = info.lines + 1;
    const { body, problems: cellProblems } = toBody(record, line);
    const detail = toValidationDetail(
      validateSync(plainToInstance(CreateRoughDiamondDto, body), { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true }),
      [],
    );
    const rowProblems = [
      ...cellProblems,
      ...detail.filter((d) => !cellProblems.some((p) => p.field === d.loc.join('.'))).map((d) => ({ line, field: d.loc.join('.'), msg: d.msg, type: d.type })),
    ];
    if (rowProblems.length > 0) invalidLines.add(line);
    problems.push(...rowProblems);
    rows.push({ line, body });
  }
  return { columns, rows, problems, invalidLines, sha256: createHash('sha256').update(bytes).digest('hex') };
}

/** The record's first line: its end line minus the line breaks inside its (quoted) cells. */
function firstLineOf(record: Record<string, string>, endLine: number, earliest: number): number {
  const breaks = Object.values(record).reduce((n, v) => n + (v.match(/\r\n|\n|\r/g)?.length ?? 0), 0);
  return Math.max(earliest, endLine - breaks);
}

function toBody(record: Record<string, string>, line: number): { body: Record<string, unknown>; problems: RowProblem[] } {
  const body: Record<string, unknown> = {};
  const problems: RowProblem[] = [];
  for (const [column, cell] of Object.entries(record)) {
    if (cell === '') continue;
    let value: unknown = cell;
    if (JSON_COLUMNS.has(column)) {
      try {
        value = JSON.parse(cell);
      } catch {
        problems.push({ line, field: column, msg: `${column} must be a JSON object`, type: 'json_invalid' });
        continue;
      }
    } else if (INTEGER_COLUMNS.has(column) && /^[+-]?\d+$/.test(cell)) {
      value = Number(cell);
    }
    if (column.startsWith('rough.')) {
      const rough = (body.rough ??= {}) as Record<string, unknown>;
      rough[column.slice('rough.'.length)] = value;
    } else {
      body[column] = value;
    }
  }
  return { body, problems };
}

/** The Idempotency-Key of a row: the file's content hash and the line, so a re-run sends the same keys. */
export function rowIdempotencyKey(sha256: string, line: number): string {
  return `dtp-rough-import-${sha256.slice(0, 32)}-${line}`;
}
