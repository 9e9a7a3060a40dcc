import Joi from 'joi';

/** What a key's scopes can name, each as `<resource>:read` or `<resource>:write`. */
export const SCOPE_RESOURCES = [
  'account',
  'domains',
  'pixels',
  'overlays',
  'splash',
  'campaigns',
  'channels',
  'links',
  'qr',
  'stats',
  'webhooks',
  'imports',
  'keys',
] as const;

export type ScopeResource = (typeof SCOPE_RESOURCES)[number];
export type ResourceScope = `${ScopeResource}:${'read' | 'write'}`;
/** `*` grants everything; a route that declares `*` needs a key with every right (admin API). */
export type Scope = ResourceScope | '*';

export const ALL_SCOPES: readonly Scope[] = [
  '*',
  ...SCOPE_RESOURCES.flatMap((r): ResourceScope[] => [`${r}:read`, `${r}:write`]),
];

export function isScope(value: string): value is Scope {
  return (ALL_SCOPES as readonly string[]).includes(value);
}

/** Whether `granted` covers `needed`: `*` covers all, `write` implies `read` of its resource. */
export function allows(granted: readonly string[], needed: Scope): boolean {
  if (granted.includes('*')) return true;
  if (needed === '*') return false;
  if (granted.includes(needed)) return true;
  return needed.endsWith(':read') && granted.includes(needed.replace(/:read$/, ':write'));
}

export const scopeSchema = Joi.string()
  .valid(...ALL_SCOPES)
  .messages({ 'any.only': '{{#label}} must be * or <resource>:read or <resource>:write' });

/** The scope to read or write a resource; `*` (the admin API) needs every right either way. */
export function scopeOf(resource: ScopeResource | '*', access: 'read' | 'write'): Scope {
  return resource === '*' ? '*' : `${resource}:${access}`;
}
