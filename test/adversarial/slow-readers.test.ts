// Issue 13 §1, short: clients that never read their txa pages neither stall the node nor grow it
// without bound (the full floods are floods.slow.test.ts). 50 readers of ~1 MB pages: enough that
// the old build-at-once pages held `status` for 50 page builds, past the bound derived in the run.
import { floodSuite } from './flood-suite.js';

floodSuite({ transactions: 600, slowReaders: 50, slowloris: 0, idle: 0, seconds: 4 });
