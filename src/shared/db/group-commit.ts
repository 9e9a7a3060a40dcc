/**
 * Group commit: one write in flight at a time, and the items that arrive meanwhile go out together
 * in the next one. The first write of a group waits only for the end of the event loop's current
 * turn (`setImmediate`), so requests parsed in the same turn share it; nobody waits for a timer.
 * Under load the writes of concurrent requests or jobs share one round trip. On the embedded
 * engine a write costs per call, not per document (docs/mongodb-compatibility.md), so this is
 * where a burst of QR codes spends less of the engine.
 *
 * `flush` answers one outcome per item, in order: a value, or an Error for that item alone. A
 * flush that throws fails every item of its group.
 */
export function groupCommit<I, O>(
  flush: (items: I[]) => Promise<Array<O | Error>>,
): (item: I) => Promise<O> {
  interface Waiter {
    item: I;
    resolve(value: O): void;
    reject(err: unknown): void;
  }
  let queue: Waiter[] = [];
  let flushing = false;

  const drain = async () => {
    while (queue.length > 0) {
      const group = queue;
      queue = [];
      try {
        const outcomes = await flush(group.map((w) => w.item));
        group.forEach((waiter, i) => {
          const outcome = outcomes[i];
          if (outcome instanceof Error) waiter.reject(outcome);
          else if (i < outcomes.length) waiter.resolve(outcome as O);
          else waiter.reject(new Error('group commit answered fewer outcomes than items'));
        });
      } catch (err) {
        for (const waiter of group) waiter.reject(err);
      }
    }
    flushing = false;
  };

  return (item) =>
    new Promise<O>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      if (!flushing) {
        flushing = true;
        setImmediate(() => void drain());
      }
    });
}
