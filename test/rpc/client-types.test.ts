// The typed client rejects wrongly typed calls at compile time (issue 8 point 7): the fixtures are
// type-checked by the TypeScript compiler against the built package subpath `dltnode/client`
// (dist/, as a package user sees it; run `npm run build` first, as `npm test` does).
import { describe, expect, it } from 'vitest';
import ts from 'typescript';
import { fileURLToPath } from 'node:url';

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const GOOD = fixture('client-calls.ts');
const WRONG = fixture('client-calls-wrong.ts');
const PARAMS = fixture('params-of.ts');

const options: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  strict: true,
  noEmit: true,
  skipLibCheck: true,
  types: ['node'],
};

/** `file:line: message` of each diagnostic of one file. */
function diagnostics(program: ts.Program, file: string): string[] {
  const sf = program.getSourceFile(file)!;
  return ts.getPreEmitDiagnostics(program, sf).map((d) => {
    const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0;
    return `${line}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
  });
}

describe('typed client (compile time)', () => {
  const program = ts.createProgram([GOOD, WRONG, PARAMS], options);

  it('resolves dltnode/client to the built declarations', () => {
    const resolved = ts.resolveModuleName('dltnode/client', GOOD, options, ts.sys).resolvedModule;
    expect(resolved?.resolvedFileName).toMatch(/dist\/client\/index\.d\.ts$/);
  });

  it('accepts well-typed calls, types their results, and every @ts-expect-error line is an error', () => {
    expect(diagnostics(program, GOOD)).toEqual([]);
  });

  it('types handler parameters as validateParams delivers them, and results as the caller parses them', () => {
    expect(diagnostics(program, PARAMS)).toEqual([]);
  });

  it('reports wrong parameter types, unknown and missing parameters', () => {
    const found = diagnostics(program, WRONG);
    const wrongLines = ts.sys
      .readFile(WRONG)!
      .split('\n')
      .flatMap((text, i) => (text.includes('// WRONG') ? [i + 1] : []));
    expect(wrongLines).toHaveLength(3);
    expect(found.map((d) => Number(d.split(':')[0]))).toEqual(wrongLines);
    expect(found.join('\n')).toMatch(/'number' is not assignable to type 'string'/);
    expect(found.join('\n')).toMatch(/'extra' does not exist/);
  });
});
