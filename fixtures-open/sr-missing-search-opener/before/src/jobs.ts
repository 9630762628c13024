import { Injectable } from '@nestjs/common';

@Injectable()
export class JobService {
  run() {
    console.log('tick');
  }
}
