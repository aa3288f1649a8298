// Short SIGKILL loop for `npm test` (the ≥ 20-kill one is sigkill.slow.test.ts).
import { sigkillSuite } from './sigkill-suite.js';

sigkillSuite({ kills: 3 });
