/**
 * What the HTTP server answers while start-up waits for a store (core/ops/store-wait.ts): the process is alive
 * (`/health` 200), not ready (`/health/ready` 503 naming the store it waits for), and every other request gets the
 * 503 envelope with `Retry-After`, never a refused connection or a hang. server.ts swaps in the gateway once it is up.
 */
import { API_PREFIX } from "../http/api-prefix.ts";
import { notReady } from "../api/health.ts";
import { envelopeOf, errorResponse, jsonResponse } from "../http/envelope.ts";
import { storeLabel, storeUnavailable, type StoreName } from "./unavailable.ts";

/** Which store start-up waits for now (undefined: none yet, or opening one that answered). */
export interface StartingState {
  waitingFor: StoreName | undefined;
}

export function startingApp(state: StartingState, newId: () => string): { handle(request: Request): Response } {
  return {
    handle(request) {
      const path = new URL(request.url).pathname.replace(/\/+$/, "");
      const waiting = state.waitingFor ? `waiting for ${storeLabel(state.waitingFor)}` : "opening its stores";
      if (path === `${API_PREFIX}/health`) return jsonResponse({ status: "starting" });
      if (path === `${API_PREFIX}/health/ready`) return notReady(state.waitingFor ?? "database", { starting: true }, `the gateway is starting (${waiting})`);
      const error = storeUnavailable(state.waitingFor ?? "database");
      const envelope = envelopeOf(error);
      envelope.error.message = `Service temporarily unavailable: the gateway is starting (${waiting})`;
      return errorResponse(error, envelope, { "x-generation-id": newId() });
    },
  };
}
