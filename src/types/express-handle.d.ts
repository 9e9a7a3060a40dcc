import type { NextFunction, Request, Response } from 'express-serve-static-core';

declare module 'express-serve-static-core' {
  interface Application {
    /**
     * What `app(req, res)` calls: sets the request and response prototypes, then routes. Public
     * in Express 4 and 5 (`lib/application.js`), but left out of its type definitions.
     */
    handle(req: Request, res: Response, next?: NextFunction): void;
  }
}
