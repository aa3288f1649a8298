/**
 * A typed event emitter (lodestar's `ChainEventEmitter` shape): each module declares the events it
 * emits as an interface of name → payload; the node builds one bus typed with all of them
 * (`src/node/events.ts`) and hands each module the bus. A listener that throws is logged by the
 * bus owner's `onError`, never breaks the emitter or the other listeners.
 */
export type Listener<T> = (payload: T) => void;

/** What a module needs of the bus: a bus with more events is one of these too. */
export interface Emitter<Events extends object> {
  on<K extends keyof Events>(event: K, listener: Listener<Events[K]>): () => void;
  off<K extends keyof Events>(event: K, listener: Listener<Events[K]>): void;
  emit<K extends keyof Events>(event: K, payload: Events[K]): void;
}

export class TypedEmitter<Events extends object> implements Emitter<Events> {
  private readonly listeners = new Map<keyof Events, Set<Listener<never>>>();

  constructor(private readonly onError: (event: string, err: unknown) => void = () => undefined) {}

  on<K extends keyof Events>(event: K, listener: Listener<Events[K]>): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(listener as Listener<never>);
    return () => this.off(event, listener);
  }

  off<K extends keyof Events>(event: K, listener: Listener<Events[K]>): void {
    this.listeners.get(event)?.delete(listener as Listener<never>);
  }

  /** Calls the listeners synchronously, in subscription order. */
  emit<K extends keyof Events>(event: K, payload: Events[K]): void {
    const set = this.listeners.get(event);
    if (!set) return;
    for (const l of [...set]) {
      try {
        (l as Listener<Events[K]>)(payload);
      } catch (err) {
        this.onError(String(event), err);
      }
    }
  }

  listenerCount(event: keyof Events): number {
    return this.listeners.get(event)?.size ?? 0;
  }
}
