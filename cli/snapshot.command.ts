import type { Command } from 'commander';

/** Placeholder: the owner of this area replaces it. */
export function registerSnapshot(_program: Command): void {}
