// Hooks attached to a route as Fastify adds it (from an onRoute hook), rather than to the whole app:
// work that depends on the route (is it public, its URL pattern) is then decided once per route,
// not once per request.
import type { onRequestHookHandler, onResponseHookHandler, onSendHookHandler, RouteOptions } from 'fastify';

/**
 * Appends `hook` to the route's own `name` hooks. Always a new array: Fastify's automatic HEAD
 * route starts from a shallow copy of its GET route's options, and must not share (and so double)
 * the GET route's hooks.
 */
export function appendRouteHook(route: RouteOptions, name: 'onRequest', hook: onRequestHookHandler): void;
export function appendRouteHook(route: RouteOptions, name: 'onResponse', hook: onResponseHookHandler): void;
export function appendRouteHook(route: RouteOptions, name: 'onSend', hook: onSendHookHandler): void;
export function appendRouteHook(route: RouteOptions, name: 'onRequest' | 'onResponse' | 'onSend', hook: unknown): void {
  const own: unknown = route[name];
  const list = own === undefined ? [] : Array.isArray(own) ? own : [own];
  (route as unknown as Record<string, unknown>)[name] = [...list, hook];
}
