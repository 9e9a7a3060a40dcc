import { expect } from 'chai';
import mongoose, { type Model } from 'mongoose';
import { dbShard } from '../../src/cli/shard.cli';
import { AliasReservation } from '../../src/links/alias.model';
import { Link } from '../../src/links/link.model';
import { QrImage } from '../../src/qr-codes/qr-image.model';
import {
  INDEX_NOT_FOUND,
  replacedWhenSharded,
  runShardSteps,
  SHARD_PLAN,
  shardSteps,
  uniqueConflicts,
  type ShardStep,
} from '../../src/shared/infra/shard-plan';
import { VisitHour, VisitHourLabel } from '../../src/stats/stats.model';
import { VisitBucket, VisitCount, VisitTotal } from '../../src/visits/visit.model';

/** The models of the sharded collections, by collection name. */
const MODELS = new Map<string, Model<never>>(
  [
    Link,
    AliasReservation,
    VisitBucket,
    VisitTotal,
    VisitCount,
    VisitHour,
    VisitHourLabel,
    QrImage,
  ].map((m) => [m.collection.collectionName, m as unknown as Model<never>]),
);

/** The indexes a model declares, unique or not (`_id` included, unique). */
function declared(collection: string) {
  const model = MODELS.get(collection);
  if (!model) throw new Error(`no model for ${collection}`);
  return [
    { key: { _id: 1 }, unique: true },
    ...model.schema.indexes().map(([key, options]) => ({
      key: key as Record<string, unknown>,
      unique: Boolean((options as { unique?: boolean }).unique),
    })),
  ];
}

describe('shard keys of the large collections (issue 22, docs/scaling.md)', () => {
  it('are the keys docs/scaling.md gives and justifies', () => {
    expect(Object.fromEntries(SHARD_PLAN.map((s) => [s.collection, s.key]))).to.deep.equal({
      links: { domainId: 1, alias: 1 },
      alias_reservations: { scope: 1, alias: 1 },
      visit_buckets: { targetId: 1 },
      visit_totals: { _id: 'hashed' },
      visit_counts: { target: 1 },
      visit_hours: { target: 1, hour: 1 },
      visit_hour_labels: { target: 1, hour: 1 },
      qr_images: { qrId: 1 },
    });
  });

  it('name collections the models declare, with fields the models have', () => {
    for (const spec of SHARD_PLAN) {
      const model = MODELS.get(spec.collection);
      expect(model, spec.collection).to.not.equal(undefined);
      for (const field of Object.keys(spec.key)) {
        expect(model?.schema.path(field), `${spec.collection}.${field}`).to.not.equal(undefined);
      }
    }
  });

  it('leave every declared unique index enforceable: prefixed by the key, or made non-unique on purpose', () => {
    expect(uniqueConflicts(SHARD_PLAN, declared)).to.deep.equal([]);
    // The raw visits' click-id index leads with the ranged key: enforceable.
    expect(declared('visit_buckets')).to.deep.include({
      key: { targetId: 1, entryIds: 1 },
      unique: true,
    });
    // Only links' id gives up uniqueness (ids come from one atomic counter).
    expect(SHARD_PLAN.flatMap((s) => s.nonUniqueWhenSharded ?? [])).to.deep.equal([{ id: 1 }]);
    expect(replacedWhenSharded('links', { id: 1 })).to.equal(true);
    expect(replacedWhenSharded('links', { domainId: 1, alias: 1 })).to.equal(false);
    expect(replacedWhenSharded('users', { id: 1 })).to.equal(false);
  });

  it('catch a key that would break a unique index', () => {
    const hashedLinks = [{ collection: 'links', key: { alias: 'hashed' as const } }];
    expect(uniqueConflicts(hashedLinks, declared)).to.include.members([
      'links {"domainId":1,"alias":1}',
      'links {"id":1}',
    ]);
    const countsByDim = [{ collection: 'visit_counts', key: { dim: 1 as const } }];
    expect(uniqueConflicts(countsByDim, declared)).to.deep.equal([
      'visit_counts {"target":1,"dim":1,"label":1}',
    ]);
  });

  it('back every ranged key with a declared index that starts with it', () => {
    for (const spec of SHARD_PLAN.filter((s) => !Object.values(s.key).includes('hashed'))) {
      const fields = Object.keys(spec.key);
      const backed = declared(spec.collection).some((i) =>
        fields.every((f, n) => Object.keys(i.key)[n] === f),
      );
      expect(backed, spec.collection).to.equal(true);
    }
  });

  describe('the db:shard commands', () => {
    const steps = shardSteps('linkqr');
    const names = steps.map((s) => Object.keys(s.command)[0]);

    it('enable sharding first, then shard each collection once, on its namespace', () => {
      expect(steps[0]).to.deep.include({ db: 'admin', command: { enableSharding: 'linkqr' } });
      const sharded = steps.filter((s) => 'shardCollection' in s.command).map((s) => s.command);
      expect(sharded).to.deep.equal(
        SHARD_PLAN.map((s) => ({
          shardCollection: `linkqr.${s.collection}`,
          key: s.key,
          ...(s.unique ? { unique: true } : {}),
        })),
      );
      const shardDbs = steps.filter((s) => 'shardCollection' in s.command).map((s) => s.db);
      expect(new Set(shardDbs)).to.deep.equal(new Set(['admin']));
    });

    it("replace links' unique id index before sharding links", () => {
      const at = (predicate: (s: ShardStep) => boolean) => steps.findIndex(predicate);
      const drop = at((s) => s.command.dropIndexes === 'links');
      const create = at(
        (s) =>
          s.command.createIndexes === 'links' &&
          JSON.stringify(s.command.indexes) === JSON.stringify([{ key: { id: 1 }, name: 'id_1' }]),
      );
      const shard = at((s) => s.command.shardCollection === 'linkqr.links');
      expect(drop).to.be.greaterThan(0);
      expect(steps[drop]?.command).to.deep.equal({ dropIndexes: 'links', index: 'id_1' });
      expect(drop < create && create < shard).to.equal(true);
    });

    it('build the hashed index a hashed key needs before sharding on it', () => {
      for (const collection of ['visit_totals']) {
        const build = steps.findIndex(
          (s) =>
            s.command.createIndexes === collection &&
            Object.values(
              ((s.command.indexes as Array<{ key: object }>)[0] ?? { key: {} }).key,
            ).includes('hashed'),
        );
        const shard = steps.findIndex((s) => s.command.shardCollection === `linkqr.${collection}`);
        expect(build, collection).to.be.greaterThan(-1);
        expect(build < shard, collection).to.equal(true);
      }
      expect(names.filter((n) => n === 'shardCollection')).to.have.length(SHARD_PLAN.length);
    });

    it('run in order, skipping an index already replaced, failing on anything else', async () => {
      const sent: string[] = [];
      const result = await runShardSteps(steps, async (db, command) => {
        sent.push(`${db}:${Object.keys(command)[0]}`);
        if ('dropIndexes' in command) {
          throw Object.assign(new Error('index not found with name [id_1]'), {
            code: INDEX_NOT_FOUND,
          });
        }
        return { ok: 1 };
      });
      expect(sent).to.have.length(steps.length);
      expect(result.find((r) => r.step.startsWith('dropIndexes'))?.result).to.equal('already');
      expect(result.filter((r) => r.result === 'done')).to.have.length(steps.length - 1);

      const refused = Object.assign(new Error('not a mongos'), { code: 59 });
      let failed: unknown;
      await runShardSteps(steps, async () => Promise.reject(refused)).catch((err: unknown) => {
        failed = err;
      });
      expect(failed).to.equal(refused);
    });
  });

  it('db:shard --dry-run prints the plan and the commands for the connected database', async () => {
    const db = mongoose.connection.db;
    if (!db) throw new Error('MongoDB is not connected');
    const out = await dbShard.run(['--dry-run']);
    expect(out.database).to.equal(db.databaseName);
    expect(out.commands).to.deep.equal(
      shardSteps(db.databaseName).map((s) => ({ db: s.db, command: s.command, why: s.why })),
    );
    await dbShard.run(['--bogus']).then(
      () => expect.fail('an unknown flag was accepted'),
      (err: Error) => expect(err.name).to.equal('UsageError'),
    );
  });
});
