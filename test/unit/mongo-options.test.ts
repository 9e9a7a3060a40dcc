import { expect } from 'chai';
import { mongo } from 'mongoose';
import { connectionOptions } from '../../src/shared/infra/mongo';

describe('MongoDB connection options (issue 22, B3)', () => {
  it('keep retryable reads and writes on and majority, journaled writes whatever the URI says', () => {
    // The driver parses the URI and the options here without connecting.
    const client = new mongo.MongoClient(
      'mongodb://db1:27017,db2:27017/linkqr?replicaSet=rs0&retryWrites=false&retryReads=false&w=1&journal=false',
      connectionOptions('linkqr'),
    );
    expect(client.options.retryWrites).to.equal(true);
    expect(client.options.retryReads).to.equal(true);
    expect(client.options.writeConcern).to.deep.include({ w: 'majority', journal: true });
  });

  it('are what a URI without those parameters gets too', () => {
    const client = new mongo.MongoClient('mongodb://127.0.0.1:1/linkqr', connectionOptions('x'));
    expect(client.options.retryWrites).to.equal(true);
    expect(client.options.retryReads).to.equal(true);
    expect(client.options.writeConcern).to.deep.include({ w: 'majority', journal: true });
    expect(client.options.dbName).to.equal('x');
  });
});
