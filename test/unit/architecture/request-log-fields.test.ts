/**
 * The request context's `log` is only the request's log line: code writes its fields, and only the line's writer
 * (core/pipeline/request-log.ts) reads them. Anything that decides (an error type, whether a request is a batch
 * item) reads the bill's ending or an explicit field of the context instead (README "Architecture").
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

const ROOT = join(import.meta.dir, "../../..");
const WRITER = "core/pipeline/request-log.ts";

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.ts$/.test(entry) && !entry.endsWith(".d.ts") ? [path] : [];
  });
}

const ASSIGNMENTS = new Set([ts.SyntaxKind.EqualsToken, ts.SyntaxKind.QuestionQuestionEqualsToken]);

/** `<…ctx>.log` uses in `source` that are not the target of an assignment to one of its fields (`ctx.log.x = …`). */
function logReads(source: string, fileName = "module.ts"): string[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.ESNext, true, ts.ScriptKind.TS);
  const reads: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAccessExpression(node) && node.name.text === "log" && /(^|\.)ctx$/.test(node.expression.getText(file))) {
      const field = node.parent;
      const written =
        (ts.isPropertyAccessExpression(field) || ts.isElementAccessExpression(field)) &&
        field.expression === node &&
        ts.isBinaryExpression(field.parent) &&
        field.parent.left === field &&
        ASSIGNMENTS.has(field.parent.operatorToken.kind);
      if (!written) reads.push(`${fileName}:${file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1}: ${node.parent.getText(file).slice(0, 80)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return reads;
}

describe("the request log line", () => {
  test("no module reads the context's log fields but the line's writer", () => {
    const files = ["core", "plugins", "tools", "providers"].flatMap((dir) => sources(join(ROOT, dir)));
    expect(files.length).toBeGreaterThan(400);
    const reads = files.filter((file) => relative(ROOT, file) !== WRITER).flatMap((file) => logReads(readFileSync(file, "utf8"), relative(ROOT, file)));
    expect(reads).toEqual([]);
    // The writer does read it (a wrong pattern would find nothing anywhere and pass vacuously).
    expect(logReads(readFileSync(join(ROOT, WRITER), "utf8"), WRITER).length).toBeGreaterThan(0);
  }, 60_000);

  test("a write is allowed; a read, an alias or passing it on is not", () => {
    const source = [
      "ctx.log.model = m;",
      "this.ctx.log.key ??= k;",
      'ctx.log["provider"] = p;',
      "if (ctx.log.error_type === 'x') stop();",
      "const log = ctx.log;",
      "decide(this.ctx.log);",
    ].join("\n");
    expect(logReads(source).map((read) => read.split(": ")[0])).toEqual(["module.ts:4", "module.ts:5", "module.ts:6"]);
  });
});
