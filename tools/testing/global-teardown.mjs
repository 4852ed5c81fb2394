export default async function globalTeardown() {
  if (globalThis.__DTP_PG__) await globalThis.__DTP_PG__.stop();
  if (globalThis.__DTP_KAFKA__) await globalThis.__DTP_KAFKA__.stop();
}
