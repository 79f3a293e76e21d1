/** The listing's order: lexicographic by full path (code points), directory markers `dir/` included, resumable anywhere. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { comparePaths, walk } from "../../../core/containers/walk.ts";

let root: string;
const FILES = ["a-b", "a/c", "a/c0/d", "a0", "b/x/y/z.txt", "é.txt", "ｚ.txt", "😀.txt", "A.txt"];
const DIRS = ["a/", "a/c0/", "b/", "b/x/", "b/x/y/", "empty/"];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "walk-"));
  for (const dir of DIRS) await mkdir(join(root, dir), { recursive: true });
  for (const file of FILES) await writeFile(join(root, file), file);
  // Links are neither files nor bookkeeping: never listed, never followed.
  await symlink("/etc", join(root, "link"));
});
afterAll(async () => rm(root, { recursive: true, force: true }));

const collect = async (after?: string) => {
  const paths: string[] = [];
  for await (const entry of walk(root, after)) paths.push(entry.path);
  return paths;
};

test("every file and directory marker, in code point order of the full path (not UTF-16 order, not per directory)", async () => {
  const expected = [...FILES, ...DIRS].sort(comparePaths);
  expect(await collect()).toEqual(expected);
  // The cases a per-directory sort or JS string comparison would get wrong.
  expect(expected.indexOf("a-b")).toBeLessThan(expected.indexOf("a/"));
  expect(expected.indexOf("ｚ.txt")).toBeLessThan(expected.indexOf("😀.txt"));
  expect("😀.txt" < "ｚ.txt").toBe(true);
});

test("after any path (listed or not, file or marker) resumes strictly after it", async () => {
  const all = await collect();
  const cursors = [...all, "", "a", "a/b", "a/c/", "b/x/y/zz", "zzz", "\u{10FFFF}"];
  for (const cursor of cursors) {
    expect({ cursor, paths: await collect(cursor) }).toEqual({ cursor, paths: all.filter((path) => comparePaths(path, cursor) > 0) });
  }
});
