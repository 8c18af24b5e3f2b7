// The API reference page's reading of the real OpenAPI document (modules/api-v1/openapi.server.ts): every
// operation the API declares is on the page, with its parameters and the fields of its answers.
import { describe, expect, it } from "vitest";
import { buildOpenApiDocument, V1_OPERATIONS } from "../../../modules/api-v1/openapi.server.ts";
import { apiReferenceOf } from "./api-reference.ts";

describe("apiReferenceOf", () => {
  const reference = apiReferenceOf(buildOpenApiDocument());

  it("lists every operation of the document, and only those", () => {
    const listed = reference.operations.map((op) => `${op.method} ${op.path}`).sort();
    expect(listed).toEqual(V1_OPERATIONS.map((op) => `${op.method.toUpperCase()} ${op.path}`).sort());
  });

  it("reads path parameters, nested answer fields (through $ref, arrays and nullable objects) and the open document", () => {
    const getOrder = reference.operations.find((op) => op.method === "GET" && op.path === "/api/v1/orders/{orderId}");
    expect(getOrder?.parameters).toEqual([expect.objectContaining({ name: "orderId", required: true })]);
    const ok = getOrder?.responses.find((r) => r.status === "200");
    const names = ok?.fields.map((f) => f.name) ?? [];
    expect(names).toContain("totalCents");
    expect(names).toContain("recipients[].email");
    expect(names).toContain("recipients[].delivery.state");
    expect(ok?.fields.find((f) => f.name === "recipients[].delivery.state")?.type).toMatch(/"sent"/);
    expect(getOrder?.responses.map((r) => r.status)).toEqual(expect.arrayContaining(["401", "404", "429"]));
    expect(getOrder?.secured).toBe(true);
    expect(reference.operations.find((op) => op.path === "/api/v1/openapi.json")?.secured).toBe(false);
  });

  it("reads query parameters with their defaults as optional", () => {
    const list = reference.operations.find((op) => op.method === "GET" && op.path === "/api/v1/orders");
    expect(list?.parameters.map((p) => [p.name, p.required])).toEqual([
      ["pageNumber", false],
      ["pageSize", false],
    ]);
  });

  it("refuses something that is not an OpenAPI document", () => {
    expect(() => apiReferenceOf({ hello: "world" })).toThrow(/not an OpenAPI document/);
  });
});
