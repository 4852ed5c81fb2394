/** Shipment timestamps use the form `YYYY-MM-DDTHH:MM+0000` (spec "Inbound shipment"), always UTC. */
export const SHIPMENT_TIMESTAMP_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}\+0000$/;

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

export function formatShipmentTimestamp(date: Date | string | number): string {
  const d = date instanceof Date ? date : new Date(date);
  if (Number.isNaN(d.getTime())) throw new RangeError(`invalid date: ${String(date)}`);
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}` + `T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}+0000`;
}
