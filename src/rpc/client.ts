/**
 * The typed client moved to src/client/ (the package subpath `dltnode/client`), which loads no
 * server code; this module re-exports it for the package entry and older imports.
 */
export * from '../client/index.js';
