/**
 * Container ids (spec operation 6): `ctr_<random>` for a fresh container, `sess_<hash>` for a session's, and a
 * `-r<nonce>` suffix for a restarted one. An id is also a directory name, so the grammar is narrow on purpose:
 * anything else is refused before it reaches the file system.
 */
import { createHash, randomBytes } from "node:crypto";

const ID = /^(?:ctr|sess)_[0-9a-f]{1,64}(?:-r[0-9a-f]{1,32})?$/;
const RESTART_SUFFIX = /-r[0-9a-f]+$/;

/** True for a well-formed container id (says nothing about whether it exists). */
export function isContainerId(value: string): boolean {
  return ID.test(value);
}

/** A new container's id: 128 random bits, so ids of different nodes never collide. */
export function newContainerId(): string {
  return "ctr_" + randomBytes(16).toString("hex");
}

/**
 * The session's container id: a hash of the workspace and the session key, so any session key (spaces, slashes,
 * 10 KB of text) becomes a safe name, the raw key is never written to disk, and equal keys of two workspaces do not
 * reveal each other through equal ids.
 */
export function sessionContainerId(workspaceId: string, sessionKey: string): string {
  return "sess_" + createHash("sha256").update(`${workspaceId}\n${sessionKey}`).digest("hex").slice(0, 32);
}

/** A restarted container's id: the base id (without an earlier `-r` suffix, so ids do not grow) plus a nonce. */
export function restartedId(id: string): string {
  return `${id.replace(RESTART_SUFFIX, "")}-r${randomBytes(6).toString("hex")}`;
}
