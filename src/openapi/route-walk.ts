import type { Express } from 'express';
import { endpointDocOf, type EndpointDoc } from '../shared/http/endpoint';

/** A route the app answers, as Express holds it. */
export interface RegisteredRoute {
  method: string;
  /** Express form, e.g. `/api/url/:id/update`. */
  path: string;
  /** OpenAPI form, e.g. `/api/url/{id}/update`. */
  template: string;
  doc: EndpointDoc | undefined;
}

interface LayerLike {
  handle?: unknown;
  rawPath?: unknown;
  slash?: boolean;
  route?: { path: unknown; methods: Record<string, boolean>; stack: LayerLike[] };
}

function stackOf(handle: unknown): LayerLike[] | undefined {
  const stack = (handle as { stack?: unknown } | undefined)?.stack;
  return Array.isArray(stack) ? (stack as LayerLike[]) : undefined;
}

/**
 * Routes that are not part of the API a program calls: the web dashboard's pages and the
 * session-cookie JSON only its own pages use (CSRF-protected, see src/dashboard/).
 */
export const OUTSIDE_THE_API = ['/app'];

export function isOutsideTheApi(path: string): boolean {
  return OUTSIDE_THE_API.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}

/** `/u/:username/list-:id` -> `/u/{username}/list-{id}`. */
export function toTemplate(path: string): string {
  return path.replace(/[:*]([A-Za-z0-9_]+)/g, '{$1}');
}

function walk(stack: LayerLike[], prefix: string, out: RegisteredRoute[]): void {
  for (const layer of stack) {
    if (layer.route) {
      const path = prefix + String(layer.route.path);
      const doc = layer.route.stack.map((l) => endpointDocOf(l.handle)).find(Boolean);
      for (const method of Object.keys(layer.route.methods)) {
        if (method === '_all') continue;
        out.push({ method, path, template: toTemplate(path), doc });
      }
      continue;
    }
    const inner = stackOf(layer.handle);
    if (!inner) continue;
    const mount = layer.slash || typeof layer.rawPath !== 'string' ? '' : layer.rawPath;
    walk(inner, prefix + mount.replace(/\/$/, ''), out);
  }
}

/** Every method and path the app's routers declare, the dashboard's included, in registration order. */
export function everyRoute(app: Express): RegisteredRoute[] {
  const out: RegisteredRoute[] = [];
  walk(stackOf(app.router) ?? [], '', out);
  return out;
}

/** The routes of the API a program calls (the dashboard's left out), in registration order. */
export function registeredRoutes(app: Express): RegisteredRoute[] {
  return everyRoute(app).filter((route) => !isOutsideTheApi(route.path));
}
