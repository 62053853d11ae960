package io.rediskit.sample;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.rediskit.queue.BatchProgress;
import io.rediskit.queue.QueueBatch;
import io.rediskit.queue.QueueEntry;
import io.rediskit.queue.QueueFlow;
import io.rediskit.queue.QueueListener;
import io.rediskit.queue.QueueMessage;
import io.rediskit.queue.QueueRegistry;
import io.rediskit.queue.RedisQueue;
import org.jspecify.annotations.Nullable;

import org.springframework.stereotype.Component;

/**
 * The {@code publishing} queue, with one flow and one batch (see docs/queue.md#flows and #batches).
 * <ul>
 * <li>A book export is a flow: one child per chapter, each returning its page count as its result; the parent,
 * due only once every chapter is rendered, adds them up and marks the book assembled.</li>
 * <li>A newsletter is a batch: one member per recipient, and an {@code onComplete} callback, which Redis enqueues
 * once when every mail was sent (or failed for good); its handler marks the newsletter done. The batch's progress
 * is readable while it runs.</li>
 * </ul>
 * In memory here for the sample's sake: a real application keeps these states in its database.
 */
@Component
public class Publishing {

	/**
	 * A task of the queue.
	 * @param kind {@code chapter}, {@code book}, {@code mail} or {@code newsletter}
	 * @param ref the book or the newsletter
	 * @param number the chapter, or the recipient
	 */
	public record Task(String kind, String ref, int number) {
	}

	private final RedisQueue<Task> tasks;

	private final Map<String, Integer> assembled = new ConcurrentHashMap<>();

	private final Map<String, String> newslettersDone = new ConcurrentHashMap<>();

	Publishing(QueueRegistry queues) {
		this.tasks = queues.get("publishing", Task.class);
	}

	/** @return the parent's id */
	String exportBook(String book, int chapters) {
		List<QueueEntry<Task>> children = new ArrayList<>();
		for (int chapter = 1; chapter <= chapters; chapter++) {
			children.add(QueueEntry.of(new Task("chapter", book, chapter)));
		}
		return this.tasks.enqueueFlow(QueueFlow.of(QueueEntry.of(new Task("book", book, chapters)), children))
			.parentId();
	}

	/** @return the batch id */
	String sendNewsletter(String newsletter, int recipients) {
		List<QueueEntry<Task>> mails = new ArrayList<>();
		for (int recipient = 1; recipient <= recipients; recipient++) {
			mails.add(QueueEntry.of(new Task("mail", newsletter, recipient)));
		}
		return this.tasks.enqueueBatch(QueueBatch.of(mails)
			.withId("newsletter-" + newsletter)
			.onComplete(QueueEntry.of(new Task("newsletter", newsletter, recipients))));
	}

	/** @return the book's pages once assembled, else {@code null} */
	@Nullable Integer pages(String book) {
		return this.assembled.get(book);
	}

	/** @return the newsletter's batch progress, or {@code null} */
	@Nullable BatchProgress progress(String newsletter) {
		return this.tasks.batchProgress("newsletter-" + newsletter);
	}

	/** @return the callback's id once the newsletter's {@code onComplete} ran, else {@code null} */
	@Nullable String completedBy(String newsletter) {
		return this.newslettersDone.get(newsletter);
	}

	@QueueListener(queue = "publishing", concurrency = "4")
	@Nullable Integer handle(QueueMessage<Task> message) {
		Task task = message.payload();
		switch (task.kind()) {
			case "chapter" -> {
				// A chapter of 10 pages per chapter number: its result, for the book.
				return task.number() * 10;
			}
			case "book" -> {
				int pages = message.children().results(Integer.class).values().stream().mapToInt(Integer::intValue)
					.sum();
				this.assembled.put(task.ref(), pages);
			}
			case "newsletter" -> this.newslettersDone.put(task.ref(), message.id());
			default -> {
				// A mail: sent.
			}
		}
		return null;
	}

}
