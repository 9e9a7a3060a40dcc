import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { ERROR_CODES, type ErrorCode } from '../../src/shared/errors/error-codes';

type Json = Record<string, unknown>;

interface Operation {
  template: string;
  pattern: RegExp;
  literalLength: number;
  responses: Record<string, Json>;
}

interface Checker {
  operations: Map<string, Operation[]>;
  components: Json;
}

/** Per base URL: servers that are not a linkqr app (a bare Express app, a logo host) have none. */
const checkers = new Map<string, Promise<Checker | null>>();
// Every app of the suite serves the same document, so each schema is compiled once.
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
const validators = new Map<string, ValidateFunction>();

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function compileTemplate(template: string): { pattern: RegExp; literalLength: number } {
  const parts = template.split(/(\{[^}]+\})/);
  const source = parts.map((p) => (p.startsWith('{') ? '([^/]+)' : escapeRegExp(p))).join('');
  const literalLength = parts.filter((p) => !p.startsWith('{')).join('').length;
  return { pattern: new RegExp(`^${source}/?$`, 'i'), literalLength };
}

/** `{$ref: '#/components/...'}` replaced by what it points at, so ajv sees one schema. */
function inline(node: unknown, components: Json): unknown {
  if (Array.isArray(node)) return node.map((n) => inline(n, components));
  if (typeof node !== 'object' || node === null) return node;
  const ref = (node as Json).$ref;
  if (typeof ref === 'string' && ref.startsWith('#/components/')) {
    const target = ref
      .slice('#/components/'.length)
      .split('/')
      .reduce<unknown>((at, key) => (at as Json | undefined)?.[key], components);
    return inline(target, components);
  }
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, inline(v, components)]));
}

async function load(baseUrl: string): Promise<Checker | null> {
  const res = await fetch(`${baseUrl}/api/openapi.json`);
  if (!res.ok) return null;
  const document = (await res.json()) as { paths: Record<string, Json>; components: Json };
  const operations = new Map<string, Operation[]>();
  for (const [template, item] of Object.entries(document.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const list = operations.get(method) ?? [];
      list.push({
        template,
        ...compileTemplate(template),
        responses: (op as { responses: Record<string, Json> }).responses,
      });
      operations.set(method, list);
    }
  }
  for (const list of operations.values()) list.sort((a, b) => b.literalLength - a.literalLength);
  return { operations, components: document.components };
}

/**
 * Fails the test when an answer of the app contradicts its OpenAPI document: a status the
 * operation does not list, or a JSON body its schema refuses. Requests to paths the document
 * does not know (unknown routes) are not judged here; the route-coverage test owns that.
 */
/**
 * Forgets a base URL's document once its server is closed: the next server the kernel gives the
 * same port (another test's bare Express app, say) is not judged against it.
 */
export function forgetDocumentOf(baseUrl: string): void {
  checkers.delete(baseUrl);
}

export async function checkAgainstDocument(
  baseUrl: string,
  method: string,
  path: string,
  answer: { status: number; contentType: string; body: unknown },
): Promise<void> {
  const m = method.toLowerCase();
  if (m === 'head' || m === 'options') return;
  let checker = checkers.get(baseUrl);
  if (!checker) {
    checker = load(baseUrl).catch(() => null);
    checkers.set(baseUrl, checker);
  }
  const c = await checker;
  if (!c) return;
  const pathname = new URL(path, 'http://x').pathname;
  const op = c.operations.get(m)?.find((o) => o.pattern.test(pathname));
  if (!op) return;
  const label = `${method.toUpperCase()} ${pathname} (${op.template})`;
  const response = op.responses[String(answer.status)] ?? op.responses.default;
  if (!response) {
    throw new Error(
      `${label} answered ${answer.status}, a status its OpenAPI operation does not list`,
    );
  }
  // A JSON document: `application/json` or `+json`, not JSON lines (`application/x-ndjson`).
  const media = answer.contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  if (media !== 'application/json' && !media.endsWith('+json')) return;
  const content = (inline(response, c.components) as Json).content as Json | undefined;
  const schema = (content?.['application/json'] as Json | undefined)?.schema as Json | undefined;
  if (!schema) {
    throw new Error(`${label} answered JSON with ${answer.status}, which its document does not`);
  }
  const key = `${m} ${op.template} ${answer.status}`;
  let validate = validators.get(key);
  if (!validate) {
    validate = ajv.compile(schema);
    validators.set(key, validate);
  }
  const code = (answer.body as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && ERROR_CODES[code as ErrorCode]?.status !== answer.status) {
    throw new Error(
      `${label} answered ${answer.status} with code ${code}, a code of another status`,
    );
  }
  if (!validate(answer.body)) {
    throw new Error(
      `${label} answered ${answer.status} with a body its OpenAPI schema refuses: ${ajv.errorsText(validate.errors)}\nbody: ${JSON.stringify(answer.body).slice(0, 500)}`,
    );
  }
}
