import type { Browser } from 'playwright-core';

export declare const CHROMIUM_PATH: string;
export declare const CHROMIUM_ARGS: readonly string[];
export declare function ensureChromium(log?: (line: string) => void): Promise<string>;
export declare function launchChromium(opts?: { log?: (line: string) => void }): Promise<Browser>;
