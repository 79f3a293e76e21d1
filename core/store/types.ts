/**
 * Storage contracts: repositories own all SQL; the rest of the code sees these shapes only.
 * One module per repository under ./types/ (records and repository interface); this file is the `Store` aggregate
 * and re-exports them all, so `import type { … } from "…/store/types.ts"` keeps working.
 */
import type { StoreAvailability } from "./availability.ts";
import type { BatchRepo } from "./types/batches.ts";
import type { GenerationRepo } from "./types/generations.ts";
import type { KeyRepo } from "./types/keys.ts";
import type { PresetRepo } from "./types/presets.ts";
import type { AdmissionRepo } from "./types/admissions.ts";
import type { GuardrailRepo } from "./types/guardrails.ts";
import type { WorkspaceRepo } from "./types/workspaces.ts";
import type { IdempotencyRepo } from "./types/idempotency.ts";
import type { ByokRepo } from "./types/byok.ts";

export type { BatchError, BatchItemRecord, BatchItemStatus, BatchPatch, BatchRecord, BatchRepo, BatchStatus, FailItems, ItemEnding, NewBatch } from "./types/batches.ts";
export type { DailyUsage, GenerationQuery, GenerationRecord, GenerationRepo } from "./types/generations.ts";
export type { ApiKeyRecord, KeyRateLimit, KeyRepo, LimitReset, NewApiKey } from "./types/keys.ts";
export type { NewPresetVersion, PresetRecord, PresetRepo, PresetVersionRecord } from "./types/presets.ts";
export type { BudgetInterval, NewWorkspace, Workspace, WorkspaceBudget, WorkspacePatch, WorkspaceRepo, WorkspaceSettings } from "./types/workspaces.ts";
export type { IdempotencyRepo, IdempotentReply } from "./types/idempotency.ts";
export type { ByokPatch, ByokRecord, ByokRepo } from "./types/byok.ts";
export type { AdmissionRecord, AdmissionRepo, AdmissionScope } from "./types/admissions.ts";
export type { AppliedGuardrail, AssignmentRecord, AssignmentScope, BuiltinFilter, ContentFilter, GuardrailAction, GuardrailApplyTo, GuardrailPatch, GuardrailRecord, GuardrailRepo, NewGuardrail, ScanScope } from "./types/guardrails.ts";

/** Every repository, as injected in `deps.store`. */
export interface Store {
  workspaces: WorkspaceRepo;
  keys: KeyRepo;
  generations: GenerationRepo;
  presets: PresetRepo;
  batches: BatchRepo;
  /** Guardrail policies, assignments and budget spending. */
  guardrails: GuardrailRepo;
  /** Who may use a beta feature (the alignment plugin). */
  admissions: AdmissionRepo;
  /** Finished replies of requests sent with an `Idempotency-Key`. */
  idempotency: IdempotencyRepo;
  /** Provider credentials of workspaces and keys, encrypted (README "Bring your own keys"). */
  byok: ByokRepo;
  /** `sqlite` or `postgres`: some callers (tests, workers) need to know. */
  readonly dialect: "sqlite" | "postgres";
  /** Whether the database can be reached now; callers that can wait (batch worker, ledger) wait on it. */
  readonly availability: Pick<StoreAvailability, "up" | "whenUp">;
  /** One round trip within `timeoutMs` (readiness); rejects with the 503 otherwise. */
  ping(timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}
