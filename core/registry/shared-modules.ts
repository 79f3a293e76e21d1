/**
 * Third-party modules import `inference-gateway/sdk`, adapters `inference-gateway/sdk/provider` too (and TypeBox for
 * their option schemas). Inside a `bun build --compile` binary there is no node_modules to resolve them from, so
 * before extensions load, these names are registered as virtual modules that resolve to the gateway's own instances
 * (which also spares a module run from source a second copy of them).
 */
import * as typebox from "@sinclair/typebox";
import * as sdk from "../sdk/index.ts";
import * as providerKit from "../sdk/provider.ts";

let registered = false;

export function registerSharedModules(): void {
  if (registered) return;
  registered = true;
  Bun.plugin({
    name: "gateway shared modules",
    setup(build) {
      build.module("inference-gateway/sdk", () => ({ exports: { ...sdk }, loader: "object" }));
      build.module("inference-gateway/sdk/provider", () => ({ exports: { ...providerKit }, loader: "object" }));
      build.module("@sinclair/typebox", () => ({ exports: { ...typebox }, loader: "object" }));
    },
  });
}
