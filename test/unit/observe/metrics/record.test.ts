/** core/observe/metrics/record.ts: a request's counters read its bill (charges, ending), never its log line. */
import { describe, expect, test } from "bun:test";
import { Registry } from "prom-client";
import { closeFailed } from "../../../../core/accounting/close-bill.ts";
import { GatewayError } from "../../../../core/errors.ts";
import { flushMetrics } from "../../../../core/observe/metrics/bound.ts";
import { createFamilies } from "../../../../core/observe/metrics/families.ts";
import { recordRequest } from "../../../../core/observe/metrics/record.ts";
import { testContext } from "../../pipeline/helpers.ts";

async function counted(registry: Registry, name: string): Promise<Array<{ labels: Record<string, unknown>; value: number }>> {
  flushMetrics();
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
  return (metric?.values ?? []).map((v) => ({ labels: v.labels, value: v.value }));
}

describe("recordRequest", () => {
  test("a 402 counts as a credit refusal when the bill ended in payment_required, not when only the log line says so", async () => {
    const registry = new Registry();
    const m = createFamilies(registry);
    const refused = testContext();
    closeFailed(refused, new GatewayError("payment_required", "Insufficient credits"));
    recordRequest(m, refused, 402, refused.startedAt);
    // An upstream's 402 passed on as the answer, with the log line claiming a refusal: not the gateway's refusal.
    const passedOn = testContext();
    closeFailed(passedOn, new GatewayError("provider_unavailable", "upstream said 402", { status: 402 }));
    passedOn.log.error_type = "payment_required";
    recordRequest(m, passedOn, 402, passedOn.startedAt);
    expect(await counted(registry, "gateway_credit_refusals_total")).toEqual([{ labels: { route: "/chat/completions" }, value: 1 }]);
  });

  test("charges are counted from the bill, by source; a batch item is labelled as one", async () => {
    const registry = new Registry();
    const m = createFamilies(registry);
    const ctx = testContext();
    ctx.batchId = "batch_1";
    await ctx.bill.charge({ tool: "service:web_search" }, 0.25, "search");
    await ctx.bill.charge({ plugin: "web" }, 0, "free");
    recordRequest(m, ctx, 200, ctx.startedAt);
    expect(await counted(registry, "gateway_charges_usd_total")).toEqual([{ labels: { source: "service:web_search" }, value: 0.25 }]);
    expect((await counted(registry, "gateway_requests_total")).map((v) => v.labels.route)).toEqual(["batch"]);
  });
});
