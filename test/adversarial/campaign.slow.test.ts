// Issue 13 §4a: 100,000 malformed calls over every operation, GET and POST, and 2,100 raw-socket
// framing attacks, with zero crashes, 5xx, invalid envelopes, hangs, leaks and internal errors.
import { campaignSuite } from './campaign-suite.js';

campaignSuite({ calls: 100_000, attacks: 2_100 });
