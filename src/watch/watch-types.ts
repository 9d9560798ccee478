/** The shapes the inbox watcher takes and hands out (inbox-watcher.ts). */
import type { DocumentKind } from '../kinds/index.js';
import type { DoneMarkerOptions } from './done-markers.js';

export interface InboxFolder {
  /** The inbox folder; created at start when missing. Only its direct children are watched. */
  dir: string;
  kind: DocumentKind;
  company: string;
}

export interface ReadyFile {
  path: string;
  kind: DocumentKind;
  company: string;
  size: number;
  mtimeMs: number;
  /** Why the file was taken: unchanged for `stableMs`, renamed in from a staging name, or its done marker appeared. */
  via: 'stable' | 'rename' | 'marker';
  /** The done marker that released it (delete it once the file is taken). */
  marker?: string;
  /** The name's original bytes (hex) when they were not UTF-8 and the file was renamed to their Windows-1252 decoding. */
  originalName?: string;
}

/** The part of a pino logger the watcher uses. */
export interface WatchLogger {
  warn(obj: Record<string, unknown>, msg: string): void;
  error(obj: Record<string, unknown>, msg: string): void;
  debug?(obj: Record<string, unknown>, msg: string): void;
}

export interface InboxWatcherOptions {
  folders: InboxFolder[];
  /** How long size and mtime must stay unchanged. @defaultValue 1000 */
  stableMs?: number;
  /** Poll instead of fs events (network shares). @defaultValue false */
  usePolling?: boolean;
  /** The done-marker convention (`watch.doneMarker`). @defaultValue off */
  doneMarker?: DoneMarkerOptions;
  logger?: WatchLogger;
}
