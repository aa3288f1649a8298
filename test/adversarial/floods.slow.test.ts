// Issue 13 §4c: slowloris (500), idle connections (3,000) and slow readers (200) while status
// answers and blocks go on. The bounds derive from a baseline measured in the same run
// (flood-suite.ts): before heavy pages were built in slices, 200 readers held status 13–25 s.
import { floodSuite } from './flood-suite.js';

floodSuite({ transactions: 1_300, slowReaders: 200, slowloris: 500, idle: 3_000, seconds: 20 });
