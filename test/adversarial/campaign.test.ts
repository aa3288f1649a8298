// Short malformed-input campaign for `npm test` (the 100,000-call one is campaign.slow.test.ts).
import { campaignSuite } from './campaign-suite.js';

campaignSuite({ calls: 2_000, attacks: 200 });
