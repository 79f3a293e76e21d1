/** core/pipeline/stages/auth.ts */
import { describe, expect, test } from "bun:test";
import { isGatewayError } from "../../../../core/errors.ts";
import { responseOutcome } from "../../../../core/pipeline/outcome.ts";
import { authStage } from "../../../../core/pipeline/stages/auth.ts";
import { inferencePrincipal, managementPrincipal, response, stubNext, testContext } from "../helpers.ts";

describe("auth stage", () => {
  test("an inference principal passes, its hash prefix goes to the log line, and the inner outcome is returned", async () => {
    const ctx = testContext({ principal: inferencePrincipal });
    const inner = responseOutcome(response());
    const next = stubNext(() => inner);
    expect(await authStage.run(ctx, next)).toBe(inner);
    expect(next.calls).toBe(1);
    expect(ctx.log.key).toBe("aaaaaaaa");
  });

  test("no principal is a 401 and the inner stages never run", async () => {
    const ctx = testContext({ principal: undefined });
    const next = stubNext();
    const error = await authStage.run(ctx, next).catch((e: unknown) => e);
    expect(isGatewayError(error) && [error.status, error.type]).toEqual([401, "authentication"]);
    expect(next.calls).toBe(0);
  });

  test("a management key cannot run inference (403)", async () => {
    const ctx = testContext({ principal: managementPrincipal });
    const next = stubNext();
    const error = await authStage.run(ctx, next).catch((e: unknown) => e);
    expect(isGatewayError(error) && [error.status, error.type]).toEqual([403, "permission_denied"]);
    expect(next.calls).toBe(0);
    expect(ctx.log.key).toBeUndefined();
  });
});
