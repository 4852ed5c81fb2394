/**
 * Entry of the browser bundle (bundle.ts builds it as one IIFE script): `window.DtpVerify = {verifyCustody,
 * fetchAndVerify, verifyCredential}`. The passport page's badge loads it and calls
 * `DtpVerify.fetchAndVerify({custodyUrl, keysUrl, recordUrl})`; the evidence page calls `verifyCredential(jwt, {keys})`.
 */
import { fetchAndVerify, verifyCredential, verifyCustody } from './index';

(globalThis as unknown as { DtpVerify: unknown }).DtpVerify = { verifyCustody, fetchAndVerify, verifyCredential };
