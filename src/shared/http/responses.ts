import type { Response } from 'express';
import { pageInfo, type PageQuery } from './pagination';

/** The list envelope (spec 4.1); note `error` is the string "0" here, unlike everywhere else. */
export function listEnvelope<T>(key: string, items: T[], total: number, query: PageQuery) {
  return { error: '0', data: { ...pageInfo(total, query), [key]: items } };
}

export function sendList<T>(
  res: Response,
  key: string,
  items: T[],
  total: number,
  query: PageQuery,
): void {
  res.json(listEnvelope(key, items, total, query));
}

/** Create responses (spec 4.2): `{error: 0, id, ...extra}`, HTTP 200 like GemPixel (clients treat anything else as failure). */
export function sendCreated(res: Response, body: { id: number } & Record<string, unknown>): void {
  res.json({ error: 0, ...body });
}

/** Update, delete and assign responses (spec 4.2). */
export function sendMessage(res: Response, message: string): void {
  res.json({ error: 0, message });
}

export function sendData(res: Response, body: Record<string, unknown>): void {
  res.json({ error: 0, ...body });
}
