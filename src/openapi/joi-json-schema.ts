import type Joi from 'joi';
import parse from 'joi-to-json';

export type JsonSchema = Record<string, unknown>;

/**
 * joi-to-json writes a flagged regex (`/^x$/u`) as the pattern `^x$/u`, and a map declared with
 * `.pattern(/re/, value)` as a property named `/re/` beside the right `patternProperties`. JSON
 * Schema patterns are ECMA-262 with Unicode semantics, so the flags can go, as can the stray key.
 */
function repair(node: unknown): void {
  if (Array.isArray(node)) {
    node.forEach(repair);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  const schema = node as JsonSchema;
  if (typeof schema.pattern === 'string') schema.pattern = schema.pattern.replace(/\/[a-z]+$/, '');
  const properties = schema.properties as JsonSchema | undefined;
  if (properties && schema.patternProperties) {
    for (const key of Object.keys(properties)) {
      if (key.length > 1 && key.startsWith('/')) delete properties[key];
    }
  }
  Object.values(schema).forEach(repair);
}

// Schemas are built once at import and never change, so each is converted once per process
// (every app a test suite builds generates its document).
const converted = new WeakMap<Joi.Schema, JsonSchema>();

/** The JSON Schema (2020-12, as OpenAPI 3.1 uses it) of a joi schema; treat it as read-only. */
export function toJsonSchema(schema: Joi.Schema): JsonSchema {
  let json = converted.get(schema);
  if (!json) {
    json = parse(schema, 'open-api-3.1') as JsonSchema;
    repair(json);
    converted.set(schema, json);
  }
  return json;
}
