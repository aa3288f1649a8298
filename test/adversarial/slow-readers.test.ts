// Issue 13 §1, short: clients that never read their txa pages neither stall the node nor grow it
// without bound (the full floods are floods.slow.test.ts).
import { floodSuite } from './flood-suite.js';

floodSuite({ transactions: 400, slowReaders: 20, slowloris: 0, idle: 0, seconds: 4, rssGrowthBoundMb: 200, statusBoundMs: 10_000 });
