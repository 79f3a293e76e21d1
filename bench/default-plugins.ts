/**
 * `bun bench/default-plugins.ts`: what the plugins that are on by default (context-compression, file-parser) cost a
 * request that none of them acts on, against the same tree with no plugin active. Two gateways in this process, on
 * the built-in simulator (no upstream sockets, so the gateway's own work dominates), one with both plugins turned
 * off in its config; short rounds of the same load alternate between them and the process's CPU time per request
 * is compared (median over rounds; client work is the same on both sides). All traffic is on 127.0.0.1; every
 * round is bounded by a request count, so the run stops by itself.
 */
import { startTestGateway, type TestGateway } from "../test/support/gateway.ts";

const ROUNDS = Number(process.env.AB_ROUNDS ?? 12);
const REQUESTS = Number(process.env.AB_REQUESTS ?? 1_500);
const CONCURRENCY = 8;

const body = (stream: boolean) =>
  JSON.stringify({ model: "simulator/small", stream, messages: [{ role: "system", content: "Be brief." }, { role: "user", content: `Benchmark request [sim tokens=${stream ? 50 : 16}]` }] });

async function round(gw: TestGateway, stream: boolean): Promise<number> {
  const payload = body(stream);
  let next = 0;
  const cpu = process.cpuUsage();
  const worker = async () => {
    while (next++ < REQUESTS) {
      const res = await gw.request("/chat/completions", { method: "POST", body: payload, headers: { "content-type": "application/json" } });
      if (res.status !== 200) throw new Error(`status ${res.status}: ${await res.text()}`);
      await res.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / REQUESTS;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const off = await startTestGateway({ file: { plugins: { "context-compression": { enabled: false }, "file-parser": { enabled: false } } } });
const on = await startTestGateway();
try {
  for (const stream of [false, true]) {
    const samples = { off: [] as number[], on: [] as number[] };
    await round(off, stream); // warm-up, both sides
    await round(on, stream);
    for (let i = 0; i < ROUNDS; i++) {
      // Alternate which side goes first, so drift weighs on both alike.
      const order = i % 2 === 0 ? (["off", "on"] as const) : (["on", "off"] as const);
      for (const side of order) samples[side].push(await round(side === "off" ? off : on, stream));
    }
    const a = median(samples.off);
    const b = median(samples.on);
    // Paired: each round's two sides ran back to back, so their difference is the least disturbed measure.
    const delta = median(samples.on.map((value, i) => value - samples.off[i]!));
    console.log(
      `${stream ? "stream 50 chunks" : "non-stream"} c=${CONCURRENCY}: no plugin ${a.toFixed(1)} µs CPU/req, default plugins ${b.toFixed(1)} µs; ` +
        `paired difference ${delta >= 0 ? "+" : ""}${delta.toFixed(1)} µs (${((delta / a) * 100).toFixed(1)}%)`,
    );
  }
} finally {
  await Promise.all([off.close(), on.close()]);
}
