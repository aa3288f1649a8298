// Issue 13 §4c: slowloris (500), idle connections (3,000) and slow readers (50) while status answers.
import { floodSuite } from './flood-suite.js';

floodSuite({ transactions: 1_200, slowReaders: 50, slowloris: 500, idle: 3_000, seconds: 20, rssGrowthBoundMb: 250, statusBoundMs: 2_000 });
