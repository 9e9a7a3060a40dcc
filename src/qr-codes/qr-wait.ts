import type { Response } from 'express';
import type { KeyWatch } from '../shared/cache/shared-cache';

export type WaitEnd = 'changed' | 'timeout' | 'hung-up';

/** Waits up to `ms` for the watched key to change, or until the visitor (if any) hangs up. */
export function waitForChange(watch: KeyWatch, ms: number, res?: Response): Promise<WaitEnd> {
  return new Promise((resolve) => {
    const settle = (end: WaitEnd) => {
      clearTimeout(timer);
      res?.off('close', hungUp);
      watch.cancel();
      resolve(end);
    };
    const hungUp = () => settle('hung-up');
    const timer = setTimeout(settle, ms, 'timeout');
    res?.once('close', hungUp);
    void watch.changed.then(() => settle('changed'));
  });
}
