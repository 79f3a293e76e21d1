/** Guardrail records, their assignments and budget spending, and the repository contract (../repos/guardrails.ts). */
import type { LimitReset } from "./keys.ts";

export type GuardrailAction = "block" | "redact" | "flag";
/** Which side of a request content filters read (our addition to the peer's shape). */
export type GuardrailApplyTo = "input" | "output" | "both";
export type ScanScope = "user_only" | "all_messages";
/** Who a guardrail is attached to: one key, or every key of the workspace (our stand-in for the peer's members). */
export type AssignmentScope = "key" | "workspace";

export interface ContentFilter {
  pattern: string;
  action: GuardrailAction;
  label?: string | null;
}

export interface BuiltinFilter {
  slug: string;
  action: GuardrailAction;
  scanScope?: ScanScope;
  label?: string;
}

export interface GuardrailRecord {
  id: string;
  workspaceId: string;
  name: string;
  description: string | null;
  /** USD per `resetInterval` window (or for the guardrail's lifetime when that is null); null = no budget. */
  limitUsd: number | null;
  resetInterval: LimitReset | null;
  allowedModels: string[] | null;
  ignoredModels: string[] | null;
  allowedProviders: string[] | null;
  ignoredProviders: string[] | null;
  contentFilters: ContentFilter[];
  contentFilterBuiltins: BuiltinFilter[];
  applyTo: GuardrailApplyTo;
  /**
   * The peer's other fields, stored and returned as sent: `include_byok_in_budgets`, `enforce_zdr*`,
   * `enable_*_model_*`, `allowed_data_regions` (README "Guardrails" says which of them act).
   */
  options: Record<string, unknown>;
  createdAt: number;
  updatedAt: number;
}

export type NewGuardrail = Omit<GuardrailRecord, "createdAt" | "updatedAt">;
export type GuardrailPatch = Partial<Omit<GuardrailRecord, "id" | "workspaceId" | "createdAt" | "updatedAt">>;

/** A new guardrail with every field its creator did not set at its default: it restricts and filters nothing. */
export function newGuardrail(id: string, workspaceId: string, name: string, fields: GuardrailPatch = {}): NewGuardrail {
  return {
    id,
    workspaceId,
    name,
    description: null,
    limitUsd: null,
    resetInterval: null,
    allowedModels: null,
    ignoredModels: null,
    allowedProviders: null,
    ignoredProviders: null,
    contentFilters: [],
    contentFilterBuiltins: [],
    applyTo: "input",
    options: {},
    ...definedOnly(fields),
  };
}

/** `fields` without its undefined entries (a patch leaves those as they are, so they must not override a default). */
function definedOnly(fields: GuardrailPatch): GuardrailPatch {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as GuardrailPatch;
}

export interface AssignmentRecord {
  id: string;
  guardrailId: string;
  workspaceId: string;
  scope: AssignmentScope;
  /** The key hash, or the workspace id. */
  target: string;
  createdAt: number;
}

/** A guardrail that applies to a request, and through which assignment (a key's own wins over its workspace's). */
export interface AppliedGuardrail {
  record: GuardrailRecord;
  scope: AssignmentScope;
}

export interface GuardrailRepo {
  create(guardrail: NewGuardrail): Promise<GuardrailRecord>;
  get(id: string, workspaceId: string): Promise<GuardrailRecord | undefined>;
  /** Oldest first; `total` counts every guardrail of the workspace. */
  list(workspaceId: string, page: { offset: number; limit: number }): Promise<{ data: GuardrailRecord[]; total: number }>;
  update(id: string, workspaceId: string, patch: GuardrailPatch): Promise<GuardrailRecord | undefined>;
  /** Removes the guardrail and its assignments; true when it existed. */
  delete(id: string, workspaceId: string): Promise<boolean>;
  /** Adds assignments not present yet; returns how many were added. */
  assign(guardrailId: string, workspaceId: string, scope: AssignmentScope, targets: readonly string[], ids: () => string): Promise<number>;
  /** Removes assignments; returns how many existed. */
  unassign(guardrailId: string, scope: AssignmentScope, targets: readonly string[]): Promise<number>;
  /** Assignments of a workspace (of one guardrail when given), oldest first. */
  assignments(workspaceId: string, scope: AssignmentScope, page: { offset: number; limit: number; guardrailId?: string }): Promise<{ data: AssignmentRecord[]; total: number }>;
  /** The guardrails that apply to a key: assigned to it, or to its workspace. */
  applying(workspaceId: string, keyHash: string): Promise<AppliedGuardrail[]>;
  /** USD spent under a guardrail's budget by generations created at or after `since` (Unix ms). */
  spentSince(guardrailId: string, since: number): Promise<number>;
}
