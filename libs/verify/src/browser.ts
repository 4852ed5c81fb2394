/**
 * Entry of the browser bundle (bundle.ts builds it as one IIFE script): `window.DtpVerify = {verifyCustody,
 * fetchAndVerify}`. The passport page's badge loads it and calls
 * `DtpVerify.fetchAndVerify({custodyUrl, keysUrl, recordUrl})`.
 */
import { fetchAndVerify, verifyCustody } from './index';

(globalThis as unknown as { DtpVerify: unknown }).DtpVerify = { verifyCustody, fetchAndVerify };
