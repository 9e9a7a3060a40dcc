import mongoose, { type mongo } from 'mongoose';

type Doc = Record<string, unknown>;

/** One query the service sent: its collection, command name, filter and sort. */
export interface CapturedQuery {
  collection: string;
  command: string;
  filter: Doc;
  sort: Doc | undefined;
  /** The command as sent, for `explain` on a real MongoDB. */
  raw: Doc;
}

const READS_AND_WRITES = new Set([
  'find',
  'aggregate',
  'count',
  'distinct',
  'update',
  'delete',
  'findAndModify',
]);

/** The queries a command carries (an update or delete command may carry several). */
function queriesOf(name: string, command: Doc): CapturedQuery[] {
  const collection = String(command[name]);
  const raw = { ...command };
  for (const k of ['lsid', '$db', '$clusterTime', 'txnNumber', '$readPreference']) delete raw[k];
  const one = (filter: unknown, sort: unknown): CapturedQuery => ({
    collection,
    command: name,
    filter: (filter ?? {}) as Doc,
    // The driver passes a sort as a Map.
    sort: sort instanceof Map ? (Object.fromEntries(sort) as Doc) : (sort as Doc | undefined),
    raw,
  });
  switch (name) {
    case 'find':
      return [one(command.filter, command.sort)];
    case 'count':
    case 'distinct':
      return [one(command.query, undefined)];
    case 'findAndModify':
      return [one(command.query, command.sort)];
    case 'update':
      return ((command.updates ?? []) as Doc[]).map((u) => one(u.q, undefined));
    case 'delete':
      return ((command.deletes ?? []) as Doc[]).map((d) => one(d.q, undefined));
    case 'aggregate': {
      const stages = (command.pipeline ?? []) as Doc[];
      const match = stages[0]?.$match;
      const sort = (match ? stages[1] : stages[0])?.$sort;
      return [one(match, sort)];
    }
    default:
      return [];
  }
}

/** Records every query sent to MongoDB until `stop()` (needs `monitorCommands`, see root hooks). */
export function captureQueries(): { queries: CapturedQuery[]; stop(): void } {
  const client = mongoose.connection.getClient();
  const queries: CapturedQuery[] = [];
  const listener = (event: mongo.CommandStartedEvent) => {
    if (!READS_AND_WRITES.has(event.commandName)) return;
    queries.push(...queriesOf(event.commandName, event.command as Doc));
  };
  client.on('commandStarted', listener);
  return { queries, stop: () => client.off('commandStarted', listener) };
}

interface DeclaredIndex {
  keys: Doc;
  partial: Doc | undefined;
}

/** The indexes every model declares, by collection (`_id` included). */
export function declaredIndexes(): Map<string, DeclaredIndex[]> {
  const out = new Map<string, DeclaredIndex[]>();
  for (const model of Object.values(mongoose.models)) {
    const list: DeclaredIndex[] = [{ keys: { _id: 1 }, partial: undefined }];
    for (const [keys, options] of model.schema.indexes()) {
      const partial = (options as { partialFilterExpression?: Doc }).partialFilterExpression;
      list.push({ keys: keys as Doc, partial });
    }
    out.set(model.collection.collectionName, list);
  }
  return out;
}

const BOUNDED = new Set([
  '$eq',
  '$in',
  '$gt',
  '$gte',
  '$lt',
  '$lte',
  '$all',
  '$elemMatch',
  '$type',
]);

function isPlainObject(v: unknown): v is Doc {
  return (
    typeof v === 'object' &&
    v !== null &&
    !Array.isArray(v) &&
    !(v instanceof Date) &&
    !(v instanceof RegExp) &&
    Object.getPrototypeOf(v) === Object.prototype
  );
}

/** An anchored, case-sensitive regular expression: the only kind an index bounds. */
function boundedRegex(source: string, flags: string): boolean {
  return source.startsWith('^') && !flags.includes('i');
}

/** Whether a field's condition gives an index bounds (not a whole-index or collection scan). */
function bounds(condition: unknown): boolean {
  if (condition instanceof RegExp) return boundedRegex(condition.source, condition.flags);
  if (isPlainObject(condition) && '$regularExpression' in condition) return false;
  if (!isPlainObject(condition) || !Object.keys(condition).some((k) => k.startsWith('$'))) {
    return true;
  }
  if ('$regex' in condition) {
    const r = condition.$regex;
    const source = r instanceof RegExp ? r.source : String(r);
    const flags = (r instanceof RegExp ? r.flags : '') + String(condition.$options ?? '');
    return boundedRegex(source, flags);
  }
  return Object.keys(condition).some((op) => BOUNDED.has(op));
}

function isRegex(condition: unknown): boolean {
  return condition instanceof RegExp || (isPlainObject(condition) && '$regex' in condition);
}

function partialHolds(partial: Doc | undefined, filter: Doc): boolean {
  if (!partial) return true;
  return Object.entries(partial).every(([field, condition]) => {
    const given = filter[field];
    if (!isPlainObject(condition) || !isPlainObject(given)) return given === condition;
    return Object.entries(condition).every(([op, v]) => given[op] === v);
  });
}

/** Flattens top-level `$and`; `$or` branches are checked one by one. */
function conjuncts(filter: Doc): Doc {
  const out: Doc = {};
  for (const [k, v] of Object.entries(filter)) {
    if (k === '$and') for (const part of v as Doc[]) Object.assign(out, conjuncts(part));
    else out[k] = v;
  }
  return out;
}

/**
 * Whether MongoDB can answer the query from an index: the first key of a usable index (a partial
 * one only when the query carries its filter) is bounded by the filter, or, with no filter, the
 * sort walks an index. What this reads as a scan is a COLLSCAN (or a whole-index scan for an
 * unanchored or case-insensitive regex) on MongoDB.
 */
export function usesIndex(query: CapturedQuery, indexes: Map<string, DeclaredIndex[]>): boolean {
  const declared = indexes.get(query.collection) ?? [{ keys: { _id: 1 }, partial: undefined }];
  const filter = conjuncts(query.filter);
  if (Array.isArray(filter.$or)) {
    const rest = { ...filter };
    delete rest.$or;
    return (filter.$or as Doc[]).every((branch) =>
      usesIndex({ ...query, filter: { ...rest, ...branch } }, indexes),
    );
  }
  if (filter.$text !== undefined)
    return declared.some((i) => Object.values(i.keys).includes('text'));
  const fields = Object.keys(filter).filter((k) => !k.startsWith('$'));
  // A regex no index bounds reads every key or document it is given (a scan of the user's links).
  if (fields.some((f) => isRegex(filter[f]) && !bounds(filter[f]))) return false;
  if (fields.length === 0) {
    // A plain count answers from the collection's metadata.
    if (query.command === 'count') return true;
    const first = query.sort ? Object.keys(query.sort)[0] : undefined;
    return first !== undefined && declared.some((i) => Object.keys(i.keys)[0] === first);
  }
  return declared.some((index) => {
    const lead = Object.keys(index.keys)[0] as string;
    return lead in filter && bounds(filter[lead]) && partialHolds(index.partial, filter);
  });
}

/** Whether the server can explain (MongoDB can; the embedded engine cannot). */
export async function canExplain(): Promise<boolean> {
  const db = mongoose.connection.db;
  if (!db) return false;
  try {
    await db.command({ explain: { find: 'links', filter: {} }, verbosity: 'queryPlanner' });
    return true;
  } catch {
    return false;
  }
}

function stagesOf(plan: unknown, out: string[] = []): string[] {
  if (Array.isArray(plan)) {
    for (const p of plan) stagesOf(p, out);
  } else if (plan && typeof plan === 'object') {
    for (const [k, v] of Object.entries(plan)) {
      if (k === 'stage' && typeof v === 'string') out.push(v);
      else if (k !== 'rejectedPlans') stagesOf(v, out);
    }
  }
  return out;
}

/** The stages of MongoDB's winning plan for a captured command (`explain`, queryPlanner). */
export async function explainStages(query: CapturedQuery): Promise<string[]> {
  const db = mongoose.connection.db;
  if (!db) throw new Error('MongoDB is not connected');
  const plan = await db.command({ explain: query.raw, verbosity: 'queryPlanner' });
  return stagesOf(plan);
}

/**
 * The queries that scan a collection: by `explain` on a server that has it (a stage COLLSCAN),
 * else by the declared indexes (`usesIndex`). Each is described for the failure message.
 */
export async function scans(queries: readonly CapturedQuery[]): Promise<string[]> {
  const explain = await canExplain();
  const indexes = declaredIndexes();
  const out: string[] = [];
  for (const q of queries) {
    const scan = explain ? (await explainStages(q)).includes('COLLSCAN') : !usesIndex(q, indexes);
    if (scan) {
      out.push(
        `${q.collection}.${q.command} ${JSON.stringify(q.filter)} sort ${JSON.stringify(q.sort ?? null)}`,
      );
    }
  }
  return [...new Set(out)];
}

/**
 * The declared index a query is answered from, as docs/scaling.md names it (`links {userId, id}`,
 * `visit_totals _id`): of the usable indexes, the one whose leading keys the filter bounds, then
 * the sort follows, furthest. Undefined for a query no index serves (or a metadata count).
 */
export function indexFor(
  query: CapturedQuery,
  indexes: Map<string, DeclaredIndex[]>,
): string | undefined {
  const declared = indexes.get(query.collection) ?? [{ keys: { _id: 1 }, partial: undefined }];
  const filter = conjuncts(query.filter);
  const sortKeys = Object.keys(query.sort ?? {});
  let best: { keys: string[]; score: number } | undefined;
  for (const index of declared) {
    const keys = Object.keys(index.keys);
    if (!partialHolds(index.partial, filter)) continue;
    let score = 0;
    while (
      score < keys.length &&
      (keys[score] as string) in filter &&
      bounds(filter[keys[score] as string])
    )
      score += 1;
    const fromFilter = score;
    for (const s of sortKeys) if (keys[score] === s) score += 1;
    const usable = fromFilter > 0 || (Object.keys(filter).length === 0 && score > 0);
    if (!usable) continue;
    if (!best || score > best.score || (score === best.score && keys.length < best.keys.length))
      best = { keys, score };
  }
  if (!best) return undefined;
  return best.keys.length === 1 && best.keys[0] === '_id'
    ? `${query.collection} _id`
    : `${query.collection} {${best.keys.join(', ')}}`;
}

/** The indexes a query is answered from: one, or one per branch of a top-level `$or`. */
export function indexesFor(query: CapturedQuery, indexes: Map<string, DeclaredIndex[]>): string[] {
  const filter = conjuncts(query.filter);
  if (!Array.isArray(filter.$or)) {
    const one = indexFor(query, indexes);
    return one ? [one] : [];
  }
  const rest = { ...filter };
  delete rest.$or;
  return (filter.$or as Doc[]).flatMap((branch) =>
    indexesFor({ ...query, filter: { ...rest, ...branch } }, indexes),
  );
}

/**
 * The indexes the queries use that docs/scaling.md's "Query plans" section does not name (as
 * `collection {keys}` or `collection _id`): the document lists every plan of the request paths.
 */
export function undocumentedIndexes(queries: readonly CapturedQuery[], section: string): string[] {
  const indexes = declaredIndexes();
  const used = new Set(queries.flatMap((q) => indexesFor(q, indexes)));
  return [...used].filter((name) => !section.includes(name)).sort();
}
