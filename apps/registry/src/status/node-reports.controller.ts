import { Body, Controller, Delete, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { heartbeatReportSchema } from '@modelgate/config-sync';
import { parseInput } from '../admin-api/parse-body.js';
import { RequireRole } from '../auth/access.decorator.js';
import { NodeReports } from './node-reports.js';

/**
 * `/v1/nodes`: heartbeats over HTTP, for the status view only (discovery reads Redis). A viewer
 * token is enough, the token nodes already hold for `GET /v1/config/snapshot`: a report changes
 * what `GET /v1/status` lists, nothing that routes traffic.
 */
@Controller('v1/nodes')
export class NodeReportsController {
  constructor(@Inject(NodeReports) private readonly reports: NodeReports) {}

  @Post('heartbeat')
  @RequireRole('viewer')
  @HttpCode(204)
  heartbeat(@Body() body: unknown): void {
    const { report, ttlMs } = parseInput(heartbeatReportSchema, body, 'heartbeat');
    this.reports.record(report, ttlMs);
  }

  @Delete(':role/:id')
  @RequireRole('viewer')
  @HttpCode(204)
  withdraw(@Param('role') role: string, @Param('id') id: string): void {
    this.reports.withdraw(role, id);
  }
}
