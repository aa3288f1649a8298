/**
 * The node's logger (practice P48): pino, JSON lines when stdout is not a terminal, a compact
 * human format when it is (`--log-format` overrides). Context goes in fields, never interpolated.
 * Level policy: error = the node cannot do what it was asked and an operator must act; warn = a
 * degraded or risky state (fallback transport, public bind without auth); info = lifecycle and the
 * periodic status line; debug = per-request detail (never raw request bytes above debug).
 */
import { pino, type DestinationStream, type Logger as PinoLogger } from 'pino';

/** Minimal logger shape (pino-compatible) injected into the node's modules. */
export interface Logger {
  info(obj: object | string, msg?: string): void;
  warn(obj: object | string, msg?: string): void;
  error(obj: object | string, msg?: string): void;
  debug(obj: object | string, msg?: string): void;
  child(bindings: Record<string, unknown>): Logger;
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export interface LoggerOptions {
  level: LogLevel;
  format: LogFormat;
  /** Where lines go (default: stdout). */
  destination?: { write(line: string): unknown };
}

export type NodeLogger = Logger & Pick<PinoLogger, 'level' | 'fatal' | 'flush'>;

export function createLogger(opts: LoggerOptions): NodeLogger {
  const out = opts.destination ?? process.stdout;
  const destination: DestinationStream = opts.format === 'pretty' ? { write: (line: string) => out.write(prettyLine(line)) } : (out as DestinationStream);
  return pino({ level: opts.level, base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime }, destination) as unknown as NodeLogger;
}

const LEVEL_NAMES: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO ', 40: 'WARN ', 50: 'ERROR', 60: 'FATAL' };
const OMITTED = new Set(['level', 'time', 'msg', 'pid', 'hostname']);

/** One pino JSON line → `HH:MM:SS.mmm LEVEL message key=value …` (errors keep their stack). */
export function prettyLine(jsonLine: string): string {
  let rec: Record<string, unknown>;
  try {
    rec = JSON.parse(jsonLine) as Record<string, unknown>;
  } catch {
    return jsonLine;
  }
  const time = typeof rec.time === 'string' ? rec.time.slice(11, 23) : '';
  const level = LEVEL_NAMES[rec.level as number] ?? String(rec.level);
  let line = `${time} ${level} ${typeof rec.msg === 'string' ? rec.msg : ''}`;
  let stack = '';
  for (const [k, v] of Object.entries(rec)) {
    if (OMITTED.has(k)) continue;
    if (k === 'err' && v && typeof v === 'object' && typeof (v as { stack?: unknown }).stack === 'string') {
      stack = '\n    ' + ((v as { stack: string }).stack).replace(/\n/g, '\n    ');
      continue;
    }
    line += ` ${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`;
  }
  return line + stack + '\n';
}

/** A logger that drops everything (tests, library use without logging). */
export function silentLogger(): NodeLogger {
  return pino({ level: 'silent' }) as unknown as NodeLogger;
}
