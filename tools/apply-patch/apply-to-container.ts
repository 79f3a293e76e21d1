/**
 * Applying parsed operations to a container's files. Every operation is checked and computed first (files read,
 * hunks located, paths validated), and only then is anything written, so a patch with one bad hunk changes nothing
 * and the model can retry it whole. A write the container refuses part-way (a quota) is reported with what was
 * already applied.
 */
import type { ContainerHandle } from "../../core/sdk/index.ts";
import { containerPath } from "../container-kit/paths.ts";
import { applyHunks } from "./v4a-apply.ts";
import { PatchError, type PatchOperation } from "./v4a-types.ts";

type Planned =
  | { type: "create_file"; path: string; content: string; overwrites: boolean }
  | { type: "update_file"; path: string; content: string; moveTo?: string }
  | { type: "delete_file"; path: string };

export interface AppliedOperation {
  type: PatchOperation["type"];
  path: string;
  move_to?: string;
}

export interface PatchOutcome {
  /** One line per operation, as OpenAI's apply_patch_call_output `output` reads. */
  output: string;
  operations: AppliedOperation[];
}

function messageOf(thrown: unknown): string {
  return thrown instanceof Error ? thrown.message : String(thrown);
}

async function readExisting(container: ContainerHandle, path: string, purpose: string): Promise<string> {
  try {
    return await container.readFile(path);
  } catch (thrown) {
    throw new PatchError(`cannot ${purpose} ${path}: ${messageOf(thrown)}`);
  }
}

async function exists(container: ContainerHandle, path: string): Promise<boolean> {
  try {
    await container.readFile(path);
    return true;
  } catch {
    return false;
  }
}

function pathOf(name: string, field: string): string {
  try {
    return containerPath(name, field);
  } catch (thrown) {
    throw new PatchError(messageOf(thrown));
  }
}

async function plan(container: ContainerHandle, operations: readonly PatchOperation[]): Promise<Planned[]> {
  const seen = new Set<string>();
  const claim = (path: string) => {
    if (seen.has(path)) throw new PatchError(`${path} appears in more than one operation of the patch; combine them`);
    seen.add(path);
  };
  const planned: Planned[] = [];
  for (const operation of operations) {
    const path = pathOf(operation.path, "path");
    claim(path);
    if (operation.type === "create_file") {
      planned.push({ type: "create_file", path, content: operation.content, overwrites: await exists(container, path) });
    } else if (operation.type === "delete_file") {
      await readExisting(container, path, "delete");
      planned.push({ type: "delete_file", path });
    } else {
      const content = applyHunks(await readExisting(container, path, "update"), operation.hunks, path);
      const moveTo = operation.moveTo === undefined ? undefined : pathOf(operation.moveTo, "move_to");
      if (moveTo !== undefined && moveTo !== path) {
        claim(moveTo);
        planned.push({ type: "update_file", path, content, moveTo });
      } else planned.push({ type: "update_file", path, content });
    }
  }
  return planned;
}

function describe(step: Planned): string {
  switch (step.type) {
    case "create_file":
      return step.overwrites ? `Created ${step.path} (replaced the existing file)` : `Created ${step.path}`;
    case "update_file":
      return step.moveTo === undefined ? `Updated ${step.path}` : `Updated ${step.path} (moved to ${step.moveTo})`;
    case "delete_file":
      return `Deleted ${step.path}`;
  }
}

const VERBS = { create_file: "create", update_file: "update", delete_file: "delete" } as const;

async function perform(container: ContainerHandle, step: Planned): Promise<void> {
  if (step.type === "delete_file") return container.deleteFile(step.path);
  if (step.type === "update_file" && step.moveTo !== undefined) {
    await container.writeFile(step.path, step.content);
    return container.renameFile(step.path, step.moveTo);
  }
  return container.writeFile(step.path, step.content);
}

export async function applyToContainer(container: ContainerHandle, operations: readonly PatchOperation[]): Promise<PatchOutcome> {
  const steps = await plan(container, operations);
  const done: string[] = [];
  for (const step of steps) {
    try {
      await perform(container, step);
    } catch (thrown) {
      const applied = done.length === 0 ? "nothing was changed" : `already applied: ${done.join("; ")}`;
      throw new PatchError(`could not ${VERBS[step.type]} ${step.path}: ${messageOf(thrown)} (${applied})`);
    }
    done.push(describe(step));
  }
  return {
    output: done.join("\n"),
    operations: steps.map((step) => (step.type === "update_file" && step.moveTo !== undefined ? { type: step.type, path: step.path, move_to: step.moveTo } : { type: step.type, path: step.path })),
  };
}
