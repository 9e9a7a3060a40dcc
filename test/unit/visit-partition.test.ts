import { expect } from 'chai';
import { visitPartitionOf } from '../../src/visits/visit-stream';

describe('the partition of a click', () => {
  const partitionsOf = (kind: 'link' | 'qr', partitions: number, ids: number) =>
    new Set(Array.from({ length: ids }, (_, n) => visitPartitionOf(kind, n + 1, partitions)));

  it('spreads links over every partition, and QR codes too, whatever the count', () => {
    for (let partitions = 1; partitions <= 16; partitions += 1) {
      expect(partitionsOf('link', partitions, partitions).size, `${partitions}`).to.equal(
        partitions,
      );
      expect(partitionsOf('qr', partitions, partitions).size, `${partitions}`).to.equal(partitions);
    }
  });

  it('keeps every click of one target in one partition, within range', () => {
    for (const kind of ['link', 'qr'] as const) {
      for (const id of [1, 2, 7, 1_000_003]) {
        const p = visitPartitionOf(kind, id, 4);
        expect(p).to.be.within(0, 3);
        expect(visitPartitionOf(kind, id, 4)).to.equal(p);
      }
    }
  });

  it('puts link n and QR code n apart when there are two partitions or more', () => {
    for (const partitions of [2, 4, 8]) {
      for (let id = 1; id <= 20; id += 1) {
        expect(visitPartitionOf('qr', id, partitions)).to.not.equal(
          visitPartitionOf('link', id, partitions),
        );
      }
    }
  });
});
