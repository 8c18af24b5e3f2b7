// The readable form of the OpenAPI document of /api/v1 (GET /api/v1/openapi.json, ADR 0028) for
// the portal's API reference page: each operation with its parameters, body fields and answers,
// read from the document itself, so the page can never describe a call the API does not make.
// Only the parts of JSON Schema the document uses are read (objects, arrays, enums, formats,
// nullable unions and $ref to components.schemas); anything else is shown by its type name.

type Schema = Record<string, unknown>;

export interface ReferenceField {
  /** Dotted path; array items add `[]`: recipients[].email. */
  name: string;
  type: string;
  required: boolean;
  description?: string;
}

export interface ReferenceOperation {
  method: string;
  path: string;
  summary: string;
  /** false: callable without a key. */
  secured: boolean;
  parameters: ReferenceField[];
  headers: ReferenceField[];
  body: ReferenceField[];
  responses: { status: string; description: string; fields: ReferenceField[] }[];
}

export interface ApiReference {
  title: string;
  description: string;
  operations: ReferenceOperation[];
}

const isObject = (value: unknown): value is Schema =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The schema a `$ref` points at (`#/components/schemas/Name`), or the schema itself. */
function resolve(doc: Schema, schema: unknown): Schema {
  if (!isObject(schema)) return {};
  const ref = schema.$ref;
  if (typeof ref !== "string" || !ref.startsWith("#/")) return schema;
  let node: unknown = doc;
  for (const part of ref.slice(2).split("/")) node = isObject(node) ? node[part] : undefined;
  return isObject(node) ? node : {};
}

function typeName(doc: Schema, raw: unknown): string {
  const schema = resolve(doc, raw);
  const variants = (schema.anyOf ?? schema.oneOf) as unknown[] | undefined;
  if (Array.isArray(variants)) return [...new Set(variants.map((v) => typeName(doc, v)))].join(" or ");
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(" | ");
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  const type = Array.isArray(schema.type) ? schema.type.join(" or ") : String(schema.type ?? "any");
  if (type === "array") return `array of ${typeName(doc, schema.items)}`;
  if (typeof schema.format === "string") return `${type} (${schema.format})`;
  return type;
}

/** The object members a schema describes, flattened (nested objects and arrays of objects included). */
function fieldsOf(doc: Schema, raw: unknown, prefix = "", depth = 0): ReferenceField[] {
  const schema = resolve(doc, raw);
  const variants = (schema.anyOf ?? schema.oneOf) as unknown[] | undefined;
  if (Array.isArray(variants)) {
    // A nullable object: its members are the object variant's.
    const object = variants.map((v) => resolve(doc, v)).find((v) => isObject(v.properties) || v.type === "array");
    return object ? fieldsOf(doc, object, prefix, depth) : [];
  }
  if (schema.type === "array") return fieldsOf(doc, schema.items, `${prefix}[]`, depth);
  if (!isObject(schema.properties) || depth > 4) return [];
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const out: ReferenceField[] = [];
  for (const [key, member] of Object.entries(schema.properties)) {
    const name = prefix ? `${prefix}.${key}` : key;
    const resolved = resolve(doc, member);
    out.push({
      name,
      type: typeName(doc, member),
      required: required.has(key),
      ...(typeof resolved.description === "string" ? { description: resolved.description } : {}),
    });
    out.push(...fieldsOf(doc, member, name, depth + 1));
  }
  return out;
}

function parameterFields(doc: Schema, parameters: unknown, where: string): ReferenceField[] {
  if (!Array.isArray(parameters)) return [];
  return parameters
    .map((p) => resolve(doc, p))
    .filter((p) => p.in === where)
    .map((p) => ({
      name: String(p.name),
      type: typeName(doc, p.schema),
      required: p.required === true,
      ...(typeof p.description === "string" ? { description: p.description } : {}),
    }));
}

const METHODS = ["get", "post", "put", "patch", "delete"] as const;

/** The reference of an OpenAPI 3.1 document; throws when it is not one. */
export function apiReferenceOf(doc: unknown): ApiReference {
  if (!isObject(doc) || typeof doc.openapi !== "string" || !isObject(doc.paths)) {
    throw new Error("not an OpenAPI document");
  }
  const info = isObject(doc.info) ? doc.info : {};
  const operations: ReferenceOperation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    if (!isObject(item)) continue;
    for (const method of METHODS) {
      const op = item[method];
      if (!isObject(op)) continue;
      const body = isObject(op.requestBody) ? op.requestBody : undefined;
      const bodySchema = isObject(body?.content) ? (body.content as Schema)["application/json"] : undefined;
      const responses = isObject(op.responses) ? op.responses : {};
      operations.push({
        method: method.toUpperCase(),
        path,
        summary: typeof op.summary === "string" ? op.summary : "",
        // An operation's own `security: []` opens it; otherwise the document's default applies.
        secured: !(Array.isArray(op.security) && op.security.length === 0),
        parameters: [...parameterFields(doc, op.parameters, "path"), ...parameterFields(doc, op.parameters, "query")],
        headers: parameterFields(doc, op.parameters, "header"),
        body: isObject(bodySchema) ? fieldsOf(doc, bodySchema.schema) : [],
        responses: Object.entries(responses).map(([status, raw]) => {
          const response = resolve(doc, raw);
          const content = isObject(response.content) ? response.content : {};
          const json = content["application/json"];
          return {
            status,
            description: typeof response.description === "string" ? response.description : "",
            // The problem+json shape is described once on the page, not under every status.
            fields: isObject(json) ? fieldsOf(doc, json.schema) : [],
          };
        }),
      });
    }
  }
  return {
    title: typeof info.title === "string" ? info.title : "API",
    description: typeof info.description === "string" ? info.description : "",
    operations,
  };
}
