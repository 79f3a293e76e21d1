/** The HTTP counter's route label: templates, never ids (core/observe/metrics/http-routes.ts). */
import { describe, expect, test } from "bun:test";
import { pathOf, routeMatcher } from "../../../core/observe/metrics/http-routes.ts";

const match = routeMatcher([
  { method: "POST", path: "/api/v1/chat/completions" },
  { method: "GET", path: "/api/v1/keys/:hash" },
  { method: "GET", path: "/api/v1/containers/:id/files/:file_id/content" },
  { method: "GET", path: "/metrics" },
]);

describe("route matcher", () => {
  test("static and parameterised paths map to their templates", () => {
    expect(match("POST", "http://h/api/v1/chat/completions")).toEqual({ method: "POST", route: "/api/v1/chat/completions" });
    expect(match("GET", "http://h/api/v1/keys/0123abcd?x=1")).toEqual({ method: "GET", route: "/api/v1/keys/:hash" });
    expect(match("GET", "http://h/api/v1/containers/ctr_1/files/cfile_x/content")).toEqual({ method: "GET", route: "/api/v1/containers/:id/files/:file_id/content" });
    expect(match("GET", "http://h/metrics/")).toEqual({ method: "GET", route: "/metrics" });
  });

  test("anything else is bounded: unmatched paths and unknown methods", () => {
    expect(match("GET", "http://h/api/v1/keys/a/b").route).toBe("unmatched");
    expect(match("BREW", "http://h/metrics").method).toBe("other");
    expect(match("GET", "http://h/wp-admin.php").route).toBe("unmatched");
  });

  test("pathOf", () => {
    expect(pathOf("http://127.0.0.1:8080/api/v1/x?y=1")).toBe("/api/v1/x");
    expect(pathOf("http://h")).toBe("/");
    expect(pathOf("http://h///")).toBe("/");
  });
});
