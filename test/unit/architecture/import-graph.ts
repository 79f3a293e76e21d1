// Reads the source tree's static imports and finds the runtime import circles among them. A module that is part of
// a circle may see another one's exports still undefined while they load (which one depends on the entry point), so
// the gateway keeps none. Type-only imports (`import type`, `import { type X }` with nothing else, `export type ... from`)
// vanish when Bun transpiles and are skipped; dynamic `import()` runs after loading and cannot form such a circle.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

export type ImportGraph = Map<string, string[]>;

const SOURCE_ROOTS = ["core", "plugins", "tools", "providers"];
const SOURCE_FILES = ["server.ts"];

function listSources(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) files.push(...listSources(path));
    else if (/\.tsx?$/.test(entry) && !entry.endsWith(".d.ts")) files.push(path);
  }
  return files;
}

function isTypeOnlyImport(node: ts.ImportDeclaration): boolean {
  const clause = node.importClause;
  if (!clause) return false; // `import "x"` runs x
  if (clause.isTypeOnly) return true;
  if (clause.name) return false;
  const bindings = clause.namedBindings;
  if (!bindings) return false;
  if (ts.isNamespaceImport(bindings)) return false;
  return bindings.elements.length > 0 && bindings.elements.every((element) => element.isTypeOnly);
}

function isTypeOnlyExport(node: ts.ExportDeclaration): boolean {
  if (node.isTypeOnly) return true;
  const clause = node.exportClause;
  return clause !== undefined && ts.isNamedExports(clause) && clause.elements.length > 0 && clause.elements.every((element) => element.isTypeOnly);
}

/** The relative module specifiers a file imports at load time (or, with `types`, at all, type-only imports too). */
export function runtimeSpecifiers(source: string, fileName = "module.ts", types = false): string[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.ESNext, false, ts.ScriptKind.TS);
  const specifiers: string[] = [];
  for (const statement of file.statements) {
    if (ts.isImportDeclaration(statement) && (types || !isTypeOnlyImport(statement)) && ts.isStringLiteral(statement.moduleSpecifier)) {
      specifiers.push(statement.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier && (types || !isTypeOnlyExport(statement)) && ts.isStringLiteral(statement.moduleSpecifier)) {
      specifiers.push(statement.moduleSpecifier.text);
    }
  }
  return specifiers.filter((specifier) => specifier.startsWith("."));
}

/**
 * Every source file (relative to root) with the source files it imports at load time (with `types`, at all). With
 * `only`, just the files under those directories are read (their imports still name any source file).
 */
export function readImportGraph(root: string, types = false, only?: readonly string[]): ImportGraph {
  const files = [...SOURCE_ROOTS.flatMap((dir) => listSources(join(root, dir))), ...SOURCE_FILES.map((file) => join(root, file))];
  const known = new Set(files);
  const graph: ImportGraph = new Map();
  for (const file of files) {
    if (only && !only.some((dir) => relative(root, file).startsWith(`${dir}/`))) continue;
    const targets = runtimeSpecifiers(readFileSync(file, "utf8"), file, types)
      .map((specifier) => resolve(dirname(file), specifier))
      .filter((target) => known.has(target))
      .map((target) => relative(root, target));
    graph.set(relative(root, file), [...new Set(targets)]);
  }
  return graph;
}

/** The strongly connected components with more than one module (or a module importing itself): the circles. */
export function importCircles(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const circles: string[][] = [];
  let counter = 0;

  // Iterative Tarjan: the graph is deep enough that recursion is not worth the risk.
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: Array<{ node: string; next: number }> = [{ node: start, next: 0 }];
    index.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const edges = graph.get(frame.node) ?? [];
      if (frame.next < edges.length) {
        const target = edges[frame.next++]!;
        if (!index.has(target)) {
          index.set(target, counter);
          low.set(target, counter++);
          stack.push(target);
          onStack.add(target);
          work.push({ node: target, next: 0 });
        } else if (onStack.has(target)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(target)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        const selfLoop = component.length === 1 && (graph.get(frame.node) ?? []).includes(frame.node);
        if (component.length > 1 || selfLoop) circles.push(component.sort());
      }
    }
  }
  return circles;
}
