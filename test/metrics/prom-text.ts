/**
 * A strict reader of the Prometheus text exposition format 0.0.4
 * (https://prometheus.io/docs/instrumenting/exposition_formats/): it throws on what a Prometheus
 * server would reject or read differently, and on the naming rules the format's documentation
 * states (counters end in `_total`, only counters do). Test helper; not shipped.
 */

export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  type: MetricType;
  help: string | null;
  samples: Sample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set<MetricType>(['counter', 'gauge', 'histogram', 'summary', 'untyped']);
/** Go's strconv.ParseFloat forms Prometheus accepts (decimal; Inf, Infinity, NaN in any case). */
const FLOAT = /^(?:[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf|infinity)|nan)$/i;
const TIMESTAMP = /^-?\d+$/;

export class ExpositionError extends Error {
  constructor(line: number, message: string) {
    super(`line ${line}: ${message}`);
  }
}

/** The family a sample name belongs to, given the families declared so far. */
function familyOf(name: string, families: Map<string, Family>): Family | undefined {
  const exact = families.get(name);
  if (exact) return exact;
  for (const suffix of ['_bucket', '_sum', '_count']) {
    if (!name.endsWith(suffix)) continue;
    const f = families.get(name.slice(0, -suffix.length));
    if (f && (f.type === 'histogram' || (f.type === 'summary' && suffix !== '_bucket'))) return f;
  }
  return undefined;
}

/** Unescapes a HELP docstring: only `\\` and `\n` are escapes. */
function unescapeHelp(s: string, line: number): string {
  return s.replace(/\\(.?)/g, (_m, c: string) => {
    if (c === '\\') return '\\';
    if (c === 'n') return '\n';
    throw new ExpositionError(line, `invalid escape \\${c} in HELP`);
  });
}

/** Reads `{a="x",b="y"}` from `s` at `i` (at the brace); returns the labels and the index after `}`. */
function readLabels(s: string, i: number, line: number): [Record<string, string>, number] {
  const labels: Record<string, string> = {};
  i++; // {
  for (;;) {
    if (s[i] === '}') return [labels, i + 1];
    const m = /^[a-zA-Z_][a-zA-Z0-9_]*/.exec(s.slice(i));
    if (!m) throw new ExpositionError(line, `invalid label name at column ${i + 1}`);
    const name = m[0];
    if (!LABEL_NAME.test(name) || name.startsWith('__')) throw new ExpositionError(line, `invalid label name ${name}`);
    if (name in labels) throw new ExpositionError(line, `label ${name} repeated`);
    i += name.length;
    if (s[i] !== '=' || s[i + 1] !== '"') throw new ExpositionError(line, `expected =" after label ${name}`);
    i += 2;
    let value = '';
    for (;;) {
      const c = s[i];
      if (c === undefined) throw new ExpositionError(line, `unterminated value of label ${name}`);
      if (c === '"') break;
      if (c === '\\') {
        const e = s[i + 1];
        if (e === '\\') value += '\\';
        else if (e === '"') value += '"';
        else if (e === 'n') value += '\n';
        else throw new ExpositionError(line, `invalid escape \\${e ?? ''} in label ${name}`);
        i += 2;
        continue;
      }
      value += c;
      i++;
    }
    labels[name] = value;
    i++; // closing quote
    if (s[i] === ',') i++;
    else if (s[i] !== '}') throw new ExpositionError(line, `expected , or } after label ${name}`);
  }
}

function parseValue(text: string, line: number): number {
  if (!FLOAT.test(text)) throw new ExpositionError(line, `invalid value ${JSON.stringify(text)}`);
  if (/^[+-]?inf(inity)?$/i.test(text)) return text.startsWith('-') ? -Infinity : Infinity;
  if (/^nan$/i.test(text)) return NaN;
  return Number(text);
}

function seriesKey(name: string, labels: Record<string, string>): string {
  return JSON.stringify([name, Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))]);
}

/** Checks the rules of one family once all its samples are read. */
function checkFamily(f: Family, opts: ParseOptions): void {
  const where = `family ${f.name}`;
  if (f.type === 'counter') {
    if (!f.name.endsWith('_total')) throw new Error(`${where}: a counter's name ends in _total`);
    for (const s of f.samples) if (!(s.value >= 0)) throw new Error(`${where}: counter value ${s.value} is negative or NaN`);
  } else if (f.name.endsWith('_total') && !opts.gaugeTotalAllowed?.(f.name)) {
    throw new Error(`${where}: a ${f.type} named *_total would be read as a counter`);
  }
  if (f.type !== 'histogram' && f.type !== 'summary') {
    for (const s of f.samples) if (s.name !== f.name) throw new Error(`${where}: sample ${s.name} does not belong to it`);
    return;
  }
  // Histogram and summary: group samples by their labels without `le`/`quantile`.
  const special = f.type === 'histogram' ? 'le' : 'quantile';
  const groups = new Map<string, { buckets: [number, number][]; sum?: number; count?: number }>();
  for (const s of f.samples) {
    const { [special]: bound, ...rest } = s.labels;
    const key = seriesKey('', rest);
    const g = groups.get(key) ?? { buckets: [] };
    groups.set(key, g);
    if (s.name === `${f.name}_sum`) g.sum = s.value;
    else if (s.name === `${f.name}_count`) g.count = s.value;
    else if (s.name === (f.type === 'histogram' ? `${f.name}_bucket` : f.name)) {
      if (bound === undefined) throw new Error(`${where}: ${s.name} without the ${special} label`);
      g.buckets.push([parseValue(bound, 0), s.value]);
    } else throw new Error(`${where}: sample ${s.name} does not belong to it`);
  }
  for (const [key, g] of groups) {
    if (g.count === undefined || g.sum === undefined) throw new Error(`${where} ${key}: _sum and _count are both required`);
    if (f.type !== 'histogram') continue;
    const sorted = [...g.buckets].sort((a, b) => a[0] - b[0]);
    const inf = sorted.at(-1);
    if (!inf || inf[0] !== Infinity) throw new Error(`${where} ${key}: no le="+Inf" bucket`);
    if (inf[1] !== g.count) throw new Error(`${where} ${key}: +Inf bucket ${inf[1]} differs from _count ${g.count}`);
    for (let i = 1; i < sorted.length; i++) {
      if (sorted[i]![1] < sorted[i - 1]![1]) throw new Error(`${where} ${key}: buckets are not cumulative`);
    }
  }
}

export interface ParseOptions {
  /** Gauges allowed to end in `_total` (prom-client's own `nodejs_active_*_total`, which dashboards use). */
  gaugeTotalAllowed?: (name: string) => boolean;
}

/** prom-client's default collectors name three gauges `nodejs_active_*_total`; kept as dashboards know them. */
export const PROM_CLIENT_GAUGE_TOTALS = (name: string): boolean => /nodejs_active_(handles|requests|resources)_total$/.test(name);

/** Parses an exposition strictly; throws on the first violation. */
export function parseExposition(text: string, opts: ParseOptions = {}): Map<string, Family> {
  if (text.length > 0 && !text.endsWith('\n')) throw new Error('the exposition does not end with a newline');
  const families = new Map<string, Family>();
  const series = new Set<string>();
  /** Families whose samples were seen; a family reopened after another one started is an error. */
  const closed = new Set<string>();
  let current: Family | undefined;
  const declare = (name: string, line: number): Family => {
    if (!METRIC_NAME.test(name)) throw new ExpositionError(line, `invalid metric name ${JSON.stringify(name)}`);
    let f = families.get(name);
    if (f && f !== current) throw new ExpositionError(line, `family ${name} declared again after other families`);
    if (!f) {
      f = { name, type: 'untyped', help: null, samples: [] };
      families.set(name, f);
      if (current) closed.add(current.name);
    }
    current = f;
    return f;
  };
  const typed = new Set<string>();
  const lines = text.split('\n');
  lines.pop(); // after the final newline
  lines.forEach((raw, idx) => {
    const line = idx + 1;
    if (raw.includes('\r')) throw new ExpositionError(line, 'carriage return in a line');
    const s = raw.replace(/^[ \t]+/, '');
    if (s === '') return;
    if (s.startsWith('#')) {
      const m = /^#[ \t]+(HELP|TYPE)[ \t]+(\S+)(?:[ \t]+(.*))?$/.exec(s);
      if (!m) return; // a comment
      const [, kind, name, rest = ''] = m as unknown as [string, string, string, string | undefined];
      const f = declare(name, line);
      if (kind === 'HELP') {
        if (f.help !== null) throw new ExpositionError(line, `second HELP for ${name}`);
        f.help = unescapeHelp(rest, line);
      } else {
        if (typed.has(name)) throw new ExpositionError(line, `second TYPE for ${name}`);
        if (f.samples.length > 0) throw new ExpositionError(line, `TYPE for ${name} after its samples`);
        const t = rest.trim() as MetricType;
        if (!TYPES.has(t)) throw new ExpositionError(line, `unknown type ${JSON.stringify(rest)}`);
        typed.add(name);
        f.type = t;
      }
      return;
    }
    const nm = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(s);
    if (!nm) throw new ExpositionError(line, `invalid metric name in ${JSON.stringify(raw)}`);
    const name = nm[0];
    let i = name.length;
    let labels: Record<string, string> = {};
    if (s[i] === '{') [labels, i] = readLabels(s, i, line);
    const tail = s.slice(i);
    if (!/^[ \t]/.test(tail)) throw new ExpositionError(line, 'expected a blank before the value');
    const parts = tail.trim().split(/[ \t]+/);
    if (parts.length > 2) throw new ExpositionError(line, `trailing text ${JSON.stringify(parts.slice(2).join(' '))}`);
    const value = parseValue(parts[0]!, line);
    if (parts[1] !== undefined && !TIMESTAMP.test(parts[1])) throw new ExpositionError(line, `invalid timestamp ${parts[1]}`);
    let f = familyOf(name, families);
    if (f && f !== current) throw new ExpositionError(line, `sample ${name} of family ${f.name} after other families`);
    if (!f) f = declare(name, line);
    if (closed.has(f.name)) throw new ExpositionError(line, `family ${f.name} resumed`);
    const key = seriesKey(name, labels);
    if (series.has(key)) throw new ExpositionError(line, `duplicate series ${name}${JSON.stringify(labels)}`);
    series.add(key);
    f.samples.push({ name, labels, value });
  });
  for (const f of families.values()) checkFamily(f, opts);
  return families;
}

/** The value of one series, or undefined. */
export function valueOf(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const f of families.values()) {
    for (const s of f.samples) {
      if (s.name !== name) continue;
      const keys = Object.keys(labels);
      if (keys.length === Object.keys(s.labels).length && keys.every((k) => s.labels[k] === labels[k])) return s.value;
    }
  }
  return undefined;
}
