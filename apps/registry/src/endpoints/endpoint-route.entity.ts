import { type RouteRole } from '@modelgate/contracts';
import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A row of `endpoint_routes`: one model behind an endpoint and its share of traffic. */
@Entity({ name: 'endpoint_routes' })
export class EndpointRouteEntity {
  @PrimaryColumn('uuid', { name: 'endpoint_id' })
  endpointId!: string;

  @PrimaryColumn('uuid', { name: 'model_id' })
  modelId!: string;

  /** Percent of requests, 0-100. */
  @Column('smallint')
  weight!: number;

  @Column('varchar', { length: 16 })
  role!: RouteRole;

  /** Order the routes were given in, kept for stable listings. */
  @Column('smallint')
  position!: number;
}
