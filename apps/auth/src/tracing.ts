// First import of main.ts: OpenTelemetry must patch http and pg before they load (off unless configured).
import { startTracing } from '@dtp/service-kit/telemetry';

startTracing('auth');
