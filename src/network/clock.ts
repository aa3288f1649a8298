/** The network layer's clock is the node's (src/clock.ts); `NetClock` is its name here. */
export { ManualClock, systemClock, type Clock as NetClock, type TimerHandle } from '../clock.js';
