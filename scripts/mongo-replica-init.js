/* global rs, db, quit, sleep, print, process */
// The replica set's init step (docker compose's mongo-init service, run with mongosh): initiates
// the set on first start, adds the members listed in MONGO_MEMBERS that its config lacks (one
// node to three: the cluster profile's mongo-init-cluster runs it again with three members), then
// waits for a primary. Idempotent: runs on every `up`.
const name = process.env.MONGO_REPLSET || 'rs0';
const members = (process.env.MONGO_MEMBERS || 'mongo:27017').split(',').filter(Boolean);
let initiated = true;
try {
  rs.status();
} catch {
  initiated = false;
}
if (!initiated) {
  rs.initiate({ _id: name, members: members.map((host, i) => ({ _id: i, host })) });
} else {
  const have = rs.conf().members.map((m) => m.host);
  for (const host of members) if (!have.includes(host)) rs.add(host);
}
for (let i = 0; i < 120; i += 1) {
  if (db.hello().primary) quit(0);
  sleep(1000);
}
print('no primary elected within 120 s');
quit(1);
