import { Injectable, Logger } from '@nestjs/common';

@Injectable()
export class JobService {
  private readonly log = new Logger(JobService.name);

  run() {
    this.log.log('tick');
  }
}
