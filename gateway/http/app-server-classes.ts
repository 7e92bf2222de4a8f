import http from 'node:http';
import type { Socket } from 'node:net';
import type { Express } from 'express';

type RequestClass = typeof http.IncomingMessage;
type ResponseClass = typeof http.ServerResponse;

/**
 * The request and response classes for `http.createServer`'s `IncomingMessage` / `ServerResponse`
 * options, whose instances are born with the app's prototypes (`app.request`, `app.response`).
 *
 * Why: Express gives every request and response its own prototype with `Object.setPrototypeOf` as
 * it enters the app. V8 then moves each of those objects to a map of its own, and every later property
 * access on them, in Express, in node's http code and in ours, misses its inline caches. On this
 * machine a one-route Express app spent 117 µs of user CPU a request served the usual way and 41 µs
 * on these classes (performance-gateway.md, "Issue 10, fifth pass"). With them, the prototype Express
 * sets is the one the object already has, which V8 treats as no change at all.
 *
 * Node's own constructors are plain functions (still so in node's main branch), so calling them on
 * `this` builds exactly the object node would have built; only the prototype differs, and it still
 * leads to node's. (`Reflect.construct` with our constructor as `new.target` would also work for a
 * `class`, but measured as slow as the prototype switch itself.) Should a later node make them classes,
 * which cannot be called that way, the server gets no options and Express works as it always has.
 */
export function appServerClasses(app: Express): { IncomingMessage?: RequestClass; ServerResponse?: ResponseClass } {
  const isClass = (f: unknown) => /^class\b/.test(Function.prototype.toString.call(f));
  if (isClass(http.IncomingMessage) || isClass(http.ServerResponse)) return {};
  const NodeRequest = http.IncomingMessage as unknown as (this: http.IncomingMessage, socket: Socket) => void;
  const NodeResponse = http.ServerResponse as unknown as (this: http.ServerResponse, req: http.IncomingMessage, options?: object) => void;
  function AppRequest(this: http.IncomingMessage, socket: Socket): void {
    NodeRequest.call(this, socket);
  }
  function AppResponse(this: http.ServerResponse, req: http.IncomingMessage, options?: object): void {
    NodeResponse.call(this, req, options);
  }
  AppRequest.prototype = app.request;
  AppResponse.prototype = app.response;
  return { IncomingMessage: AppRequest as unknown as RequestClass, ServerResponse: AppResponse as unknown as ResponseClass };
}
