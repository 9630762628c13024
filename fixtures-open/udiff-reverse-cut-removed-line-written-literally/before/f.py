def run(job):
    setup(job)
    log("starting job", job.id, level=2)
    log("queue", job.queue)
    execute(job)
    return job.result
