// Issue 13 §4b: 24 SIGKILLs while paying, some while a block is being written.
import { sigkillSuite } from './sigkill-suite.js';

sigkillSuite({ kills: 24 });
